import { custom, type FrameworkId, type LanguageId } from '../ids';
import type { BuildPlan, BuildSystem, Framework, FrameworkPlan, Language, Orchestrator, Runtime, ServiceContext, WorkspaceMember } from '../model';
import { tomlString, tomlStrings, tomlTable, type TomlTable } from '../toml';
import { basename, expandMembers, found, searchDirs, versionFromFiles } from './shared';

/* Rust: Cargo.toml, cargo workspaces, rust-toolchain, actix-web / axum / rocket. */

const RUST: readonly LanguageId[] = ['rust'];

export const rustLanguage: Language = {
  id: 'rust',
  detect(service) {
    return service.has('Cargo.toml') ? found<LanguageId>('rust') : undefined;
  },
};

function inCargoWorkspace(service: ServiceContext): boolean {
  return service.workspace?.orchestrator === 'cargo-workspace';
}

export const cargoBuild: BuildSystem = {
  id: 'cargo',
  languages: RUST,
  async detect(service) {
    const manifest = await service.toml('Cargo.toml');
    if (!manifest) return undefined;
    return found<BuildPlan>({
      id: 'cargo',
      install: ['cargo fetch'],
      build: ['cargo build --release'],
      // A workspace shares one target/ at its root (listed by the RootCache phase).
      cache: ['~/.cargo/registry', '~/.cargo/git', ...(inCargoWorkspace(service) ? [] : ['target'])],
      projectName: tomlString(manifest, 'package', 'name'),
    });
  },
};

/** Full-stack frameworks before the web servers beneath them. */
const RUST_FRAMEWORK_CRATES: { id: FrameworkId; crates: string[]; port: number }[] = [
  { id: custom('leptos'), crates: ['leptos'], port: 3000 },
  { id: custom('dioxus'), crates: ['dioxus'], port: 8080 },
  { id: custom('loco'), crates: ['loco-rs'], port: 5150 },
  { id: 'rocket', crates: ['rocket'], port: 8000 },
  { id: 'actix-web', crates: ['actix-web'], port: 8080 },
  { id: 'axum', crates: ['axum'], port: 3000 },
  { id: custom('poem'), crates: ['poem'], port: 3000 },
  { id: custom('salvo'), crates: ['salvo'], port: 5800 },
  { id: custom('warp'), crates: ['warp'], port: 3030 },
  { id: custom('tide'), crates: ['tide'], port: 8080 },
  { id: custom('yew'), crates: ['yew'], port: 8080 },
];

export const RUST_FRAMEWORKS: Framework[] = [
  {
    id: custom('rust-frameworks'),
    languages: RUST,
    async detect(service) {
      const dependencies = tomlTable(await service.toml('Cargo.toml'), 'dependencies') ?? {};
      const rule = RUST_FRAMEWORK_CRATES.find(({ crates }) => crates.some((crate) => crate in dependencies));
      return rule ? found<FrameworkPlan>({ id: rule.id, ports: [rule.port] }) : undefined;
    },
  },
];

/** rust-toolchain(.toml) pins the compiler for the whole tree, so it is searched up to the root. */
async function toolchainChannel(service: ServiceContext): Promise<{ requested: string; source: string } | undefined> {
  for (const dir of searchDirs(service)) {
    const channel = tomlString(await service.scan.toml(dir, 'rust-toolchain.toml'), 'toolchain', 'channel');
    if (channel) return { requested: channel, source: 'rust-toolchain.toml' };
    const legacy = (await service.scan.read(dir, 'rust-toolchain'))?.trim();
    if (legacy) return { requested: tomlString(await service.scan.toml(dir, 'rust-toolchain'), 'toolchain', 'channel') ?? legacy, source: 'rust-toolchain' };
  }
  return undefined;
}

function binaryName(manifest: TomlTable, service: ServiceContext): string | undefined {
  const bins = manifest.bin;
  const firstBin = Array.isArray(bins) ? bins.find((bin): bin is TomlTable => typeof bin === 'object' && !Array.isArray(bin)) : undefined;
  if (firstBin && typeof firstBin.name === 'string') return firstBin.name;
  return service.scan.has(service.dir === '.' ? 'src' : `${service.dir}/src`, 'main.rs') ? tomlString(manifest, 'package', 'name') : undefined;
}

export const rustRuntime: Runtime = {
  id: 'rust',
  languages: RUST,
  async detect(service, stack) {
    const manifest = await service.toml('Cargo.toml');
    if (!manifest) return undefined;
    const rustVersion = tomlString(manifest, 'package', 'rust-version');
    const version =
      (await toolchainChannel(service)) ??
      (rustVersion ? { requested: rustVersion, source: 'Cargo.toml rust-version' } : undefined) ??
      (await versionFromFiles(service, [], ['rust'])) ?? { requested: 'stable', source: 'default' };
    const binary = binaryName(manifest, service);
    const targetDir = inCargoWorkspace(service) || service.dir === '.' ? 'target' : `${service.dir}/target`;
    return found({
      name: 'rust' as const,
      version,
      command: binary ? `./${targetDir}/release/${binary}` : undefined,
      ports: stack.framework?.ports ?? [],
      base_image: `rust:${/^\d/.test(version.requested ?? '') ? version.requested : '1'}-slim`,
    });
  },
};

export const cargoWorkspace: Orchestrator = {
  id: 'cargo-workspace',
  role: 'members',
  async detect(root) {
    const manifest = await root.toml('Cargo.toml');
    const workspace = tomlTable(manifest, 'workspace');
    if (!manifest || !workspace) return undefined;
    const excluded = tomlStrings(manifest, 'workspace', 'exclude').map((pattern) => `!${pattern}`);
    const dirs = expandMembers(root, [...tomlStrings(manifest, 'workspace', 'members'), ...excluded], 'Cargo.toml');
    if (tomlTable(manifest, 'package')) dirs.unshift('.');
    const members: WorkspaceMember[] = [];
    for (const dir of dirs) {
      const name = tomlString(await root.scan.toml(dir, 'Cargo.toml'), 'package', 'name') ?? basename(dir);
      members.push({ dir, name });
    }
    return found({
      orchestrator: 'cargo-workspace' as const,
      manager: 'cargo' as const,
      sharedInstall: true,
      members,
      buildCommand: (member: WorkspaceMember) => `cargo build --release -p ${member.name}`,
      cache: ['target'],
    });
  },
};
