/**
 * Shares `total` bytes among bodies of `sizes` fairly: each first gets its minimum, then the rest
 * is poured evenly, so small bodies stay whole and large ones end up with equal shares. Ties are
 * broken by position, so the same input always gives the same shares. Needs Σ minimums ≤ total.
 */
export function waterFill(sizes: readonly number[], minimums: readonly number[], total: number): number[] {
  const shares = minimums.slice();
  let remaining = total - minimums.reduce((sum, minimum) => sum + minimum, 0);
  const order = sizes.map((_, index) => index).sort((a, b) => sizes[a] - minimums[a] - (sizes[b] - minimums[b]) || a - b);
  order.forEach((index, position) => {
    const even = Math.floor(remaining / (order.length - position));
    const extra = Math.max(0, Math.min(sizes[index] - minimums[index], even));
    shares[index] += extra;
    remaining -= extra;
  });
  return shares;
}
