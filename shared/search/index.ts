// Public surface of shared/search: chunking with locators, query normalisation, fusion,
// excerpts and citations.
export * from './chunk-options';
export * from './chunk';
export * from './pdf-chunk';
export * from './hash';
export * from './tokenize';
export * from './fusion';
export * from './excerpt';
export * from './citation';
export * from './exclude-rules';
export * from './language';
export * from './synonyms';
export * from './claim-check';
export * from './source-dates';
export * from './decisions';
export * from './answer-gate';
