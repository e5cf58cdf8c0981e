import { DEFAULT_WEIGHTS, type FusionWeights } from '@quarry/context';

/**
 * `--tune` (development part only): the fusion's knobs moved one at a time around the defaults,
 * each variant fused from the same signals. What it shows is how flat or steep each knob is; a
 * default moves only when the gain holds across repositories, never for one instance.
 */
export function weightVariants(base: FusionWeights = DEFAULT_WEIGHTS): { name: string; weights: FusionWeights }[] {
  const variants: { name: string; weights: FusionWeights }[] = [{ name: 'defaults', weights: base }];
  const add = (name: string, change: (weights: FusionWeights) => void) => {
    const weights = structuredClone(base);
    change(weights);
    variants.push({ name, weights });
  };
  for (const signal of ['explicit', 'definitions', 'literals', 'bm25', 'paths', 'graph'] as const) {
    for (const factor of [0, 0.5, 1.5, 2.5]) add(`file.${signal} ×${factor}`, (weights) => (weights.file[signal] *= factor));
  }
  for (const signal of ['explicit', 'definitions', 'literals'] as const) {
    for (const factor of [0.3, 3, 10]) add(`squash.${signal} ×${factor}`, (weights) => (weights.squash[signal] = (weights.squash[signal] ?? 1) * factor));
    add(`squash.${signal} relative`, (weights) => delete weights.squash[signal]);
  }
  for (const prior of [0, 0.15, 0.3]) add(`prior ${prior}`, (weights) => (weights.prior = prior));
  for (const role of ['test', 'docs', 'example'] as const) for (const value of [0.05, 0.6, 1]) add(`roles.${role} ${value}`, (weights) => (weights.roles[role] = value));
  for (const value of [0.2, 1, 2]) add(`span.file ${value}`, (weights) => (weights.span.file = value));
  for (const signal of ['explicit', 'definitions', 'literals', 'bm25', 'graph'] as const) {
    for (const factor of [0, 0.5, 2]) add(`span.${signal} ×${factor}`, (weights) => (weights.span.signals[signal] *= factor));
  }
  for (const files of [5, 8, 20]) add(`spanFiles ${files}`, (weights) => (weights.spanFiles = files));
  return variants;
}
