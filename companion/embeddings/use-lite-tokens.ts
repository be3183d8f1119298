// The 128-token cap is shared with the plugin, which runs the same model.
export * from '../../shared/embeddings/use-lite-tokens';
