/** A count with thousands separators, the same on every machine. */
export const number = (value: number): string => value.toLocaleString('en-US');

/** Bytes in binary units with one decimal: `512 B`, `1.5 KB`, `5.0 GB`. */
export function humanBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}
