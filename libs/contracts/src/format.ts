/*
 * How Quarry writes numbers in messages, summaries and progress, the same in every library and on
 * every machine (`@quarry/contracts/format`: no zod, so threads can load it). The dashboard, which
 * loads no library code, has its copy in apps/web/src/ui.ts.
 */

/**
 * A count with thousands separators: `78,255`. Whole numbers are grouped by hand: `toLocaleString`
 * goes through Intl and costs microseconds, and a scan formats its progress bar once per file.
 */
export function formatCount(value: number): string {
  if (!Number.isSafeInteger(value)) return value.toLocaleString('en-US');
  const digits = String(Math.abs(value));
  let grouped = digits.slice(0, digits.length % 3 || 3);
  for (let at = grouped.length; at < digits.length; at += 3) grouped += ',' + digits.slice(at, at + 3);
  return value < 0 ? '-' + grouped : grouped;
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** Bytes in binary units: `812 B`, `1.5 KiB`, `40 KiB`, `1.2 MiB`, `5 GiB` (one decimal below 10, none from 10). */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  if (unit === 0) return `${value} B`;
  const shown = Math.abs(value) < 10 ? Number(value.toFixed(1)) : Math.round(value);
  return `${shown} ${UNITS[unit]}`;
}
