// The identity of the built-in model's vectors is shared with the plugin, which runs the same model.
export { USE_LITE_MODEL } from '../../shared/embeddings/use-lite-model';
