export * from './parse';
export * from './augment';
