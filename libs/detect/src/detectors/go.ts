import { custom, type FrameworkId, type LanguageId } from '../ids';
import type { BuildPlan, BuildSystem, Framework, FrameworkPlan, Language, Orchestrator, Runtime, ServiceContext, WorkspaceMember } from '../model';
import { basename, childDirectories, found, versionFromFiles } from './shared';

/* Go modules: go.mod (`go` directive, requires), go.work workspaces, gin / echo / fiber. */

const GO: readonly LanguageId[] = ['go'];
const DEFAULT_GO = '1.23';

export interface GoModule {
  path?: string;
  go?: string;
  /** Required module paths with any `/vN` major-version suffix removed. */
  requires: Set<string>;
}

export function parseGoMod(text: string): GoModule {
  const requires = new Set<string>();
  let inRequire = false;
  let modulePath: string | undefined;
  let go: string | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (inRequire) {
      if (line === ')') inRequire = false;
      else if (line) requires.add(withoutMajor(line.split(/\s+/)[0]));
      continue;
    }
    const [keyword, first] = line.split(/\s+/);
    if (keyword === 'module') modulePath = first;
    else if (keyword === 'go') go = first;
    else if (keyword === 'require' && first === '(') inRequire = true;
    else if (keyword === 'require' && first) requires.add(withoutMajor(first));
  }
  return { path: modulePath, go, requires };
}

function withoutMajor(modulePath: string): string {
  return modulePath.replace(/\/v\d+$/, '');
}

async function goModule(service: ServiceContext): Promise<GoModule | undefined> {
  const text = await service.read('go.mod');
  return text === undefined ? undefined : parseGoMod(text);
}

export const goLanguage: Language = {
  id: 'go',
  detect(service) {
    return service.has('go.mod') ? found<LanguageId>('go') : undefined;
  },
};

/** The main package: `main.go` at the module root, else the first `cmd/<name>/main.go`. */
function mainPackage(service: ServiceContext, moduleName: string): { target: string; binary: string } | undefined {
  if (service.has('main.go')) return { target: '.', binary: moduleName };
  const cmd = childDirectories(service).find((dir) => basename(dir) === 'cmd');
  const command = cmd && service.scan.directories.find((dir) => dir.startsWith(`${cmd}/`) && service.scan.has(dir, 'main.go'));
  if (!command) return undefined;
  const relative = service.dir === '.' ? command : command.slice(service.dir.length + 1);
  return { target: `./${relative}`, binary: basename(command) };
}

function moduleName(module: GoModule, service: ServiceContext): string {
  return basename(withoutMajor(module.path ?? '')) || basename(service.dir === '.' ? service.scan.root : service.dir);
}

export const goBuild: BuildSystem = {
  id: 'go',
  languages: GO,
  async detect(service) {
    const module = await goModule(service);
    if (!module) return undefined;
    const name = moduleName(module, service);
    const main = mainPackage(service, name);
    return found<BuildPlan>({
      id: 'go',
      install: ['go mod download'],
      build: [main ? `go build -o bin/${main.binary} ${main.target}` : 'go build ./...'],
      cache: ['~/go/pkg/mod', '~/.cache/go-build'],
      env: { CGO_ENABLED: '0' },
      projectName: name,
    });
  },
};

/** Full-stack frameworks first, then routers; module paths without their `/vN` suffix. */
const GO_FRAMEWORKS_BY_MODULE: { id: FrameworkId; modules: string[]; port: number }[] = [
  { id: custom('buffalo'), modules: ['github.com/gobuffalo/buffalo'], port: 3000 },
  { id: custom('beego'), modules: ['github.com/beego/beego', 'github.com/astaxie/beego'], port: 8080 },
  { id: custom('revel'), modules: ['github.com/revel/revel'], port: 9000 },
  { id: 'gin', modules: ['github.com/gin-gonic/gin'], port: 8080 },
  { id: 'echo', modules: ['github.com/labstack/echo'], port: 1323 },
  { id: 'fiber', modules: ['github.com/gofiber/fiber'], port: 3000 },
  { id: custom('iris'), modules: ['github.com/kataras/iris'], port: 8080 },
  { id: custom('hertz'), modules: ['github.com/cloudwego/hertz'], port: 8888 },
  { id: custom('chi'), modules: ['github.com/go-chi/chi'], port: 3000 },
  { id: custom('gorilla-mux'), modules: ['github.com/gorilla/mux'], port: 8080 },
];

export const GO_FRAMEWORKS: Framework[] = [
  {
    id: custom('go-frameworks'),
    languages: GO,
    async detect(service) {
      const requires = (await goModule(service))?.requires;
      const rule = requires && GO_FRAMEWORKS_BY_MODULE.find(({ modules }) => modules.some((module) => requires.has(module)));
      return rule ? found<FrameworkPlan>({ id: rule.id, ports: [rule.port] }) : undefined;
    },
  },
];

export const goRuntime: Runtime = {
  id: 'go',
  languages: GO,
  async detect(service, stack) {
    const module = await goModule(service);
    if (!module) return undefined;
    const version = module.go
      ? { requested: module.go, source: 'go.mod go directive' }
      : ((await versionFromFiles(service, ['.go-version'], ['golang', 'go'])) ?? { requested: DEFAULT_GO, source: 'default' });
    const main = mainPackage(service, moduleName(module, service));
    return found({
      name: 'go' as const,
      version,
      command: main ? `./bin/${main.binary}` : undefined,
      ports: stack.framework?.ports ?? [],
      base_image: `golang:${version.requested ?? DEFAULT_GO}`,
    });
  },
};

/** go.work `use` directives: each used module is a service. */
export const goWork: Orchestrator = {
  id: 'go-work',
  role: 'members',
  async detect(root) {
    const text = await root.read('go.work');
    if (text === undefined) return undefined;
    const members: WorkspaceMember[] = [];
    for (const dir of goWorkUses(text)) {
      const clean = dir.replace(/^\.\//, '').replace(/\/+$/, '') || '.';
      if (root.scan.has(clean, 'go.mod')) members.push({ dir: clean, name: basename(clean === '.' ? root.scan.root : clean) });
    }
    return found({ orchestrator: 'go-work' as const, manager: 'go' as const, members });
  },
};

function goWorkUses(text: string): string[] {
  const uses: string[] = [];
  let inBlock = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (inBlock) {
      if (line === ')') inBlock = false;
      else if (line) uses.push(line);
    } else if (line === 'use (') inBlock = true;
    else if (line.startsWith('use ')) uses.push(line.slice(4).trim());
  }
  return uses;
}
