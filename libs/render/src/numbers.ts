/**
 * A count with thousands separators, the same on every machine. Whole numbers are grouped by hand:
 * `toLocaleString` goes through Intl and costs microseconds, and a scan formats its progress bar
 * once per file.
 */
export function number(value: number): string {
  if (!Number.isSafeInteger(value)) return value.toLocaleString('en-US');
  const digits = String(Math.abs(value));
  let grouped = digits.slice(0, digits.length % 3 || 3);
  for (let at = grouped.length; at < digits.length; at += 3) grouped += ',' + digits.slice(at, at + 3);
  return value < 0 ? '-' + grouped : grouped;
}

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
