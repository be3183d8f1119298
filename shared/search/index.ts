// Public surface of shared/search: chunking with locators, query normalisation, fusion.
export * from './chunk-options';
export * from './chunk';
export * from './hash';
