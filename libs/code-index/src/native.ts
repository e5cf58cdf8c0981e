import fs from 'node:fs';
import path from 'node:path';

/**
 * The code index's native addons (libs/code-index/native, built by `npm run build` with node-gyp):
 * `c_syntax`, tree-sitter's C parser with a flat walk (symbols/native-c.ts), and `bpe_count`, exact
 * o200k_base counts of ASCII texts (tokens/bpe-counter.ts). Each does what JavaScript and
 * WebAssembly do beside it, with the same results, faster; when an addon is not built (sources run
 * by ts-jest before a build) or `QUARRY_NATIVE=0`, they do it.
 */
export type NativeAddonName = 'c_syntax' | 'bpe_count';

/** The addons as node-gyp builds them, seen from this file in the sources and in dist/. */
const BUILD_DIRECTORIES = [path.resolve(__dirname, '..', 'native', 'build', 'Release'), path.resolve(__dirname, '..', '..', '..', '..', 'libs', 'code-index', 'native', 'build', 'Release')];

const loaded = new Map<NativeAddonName, unknown>();

/** Whether native code is allowed: the same spellings as the configuration's flags (libs/config validates the variable at start). */
export function nativeEnabled(): boolean {
  return !['0', 'false', 'no'].includes(process.env.QUARRY_NATIVE ?? '');
}

/** The addon, loaded once per thread, or null when it is not built or native code is off. */
export function nativeAddon<T>(name: NativeAddonName): T | null {
  if (!loaded.has(name)) {
    const file = BUILD_DIRECTORIES.map((directory) => path.join(directory, `${name}.node`)).find((candidate) => fs.existsSync(candidate));
    loaded.set(name, nativeEnabled() && file !== undefined ? require(file) : null);
  }
  return loaded.get(name) as T | null;
}
