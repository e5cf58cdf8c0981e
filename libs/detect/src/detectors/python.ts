import { custom, type FrameworkId, type LanguageId } from '../ids';
import type { BuildPlan, BuildSystem, Framework, FrameworkPlan, Language, Runtime, ServiceContext } from '../model';
import { tomlString, tomlStrings, tomlTable, type TomlTable } from '../toml';
import { basename, childDirectories, found, hasNearby, majorOf, procfileWeb, versionFromFiles } from './shared';

/*
 * Python: uv, poetry, pdm, pipenv, pip, setuptools. `pyproject.toml` plus a lock file is enough;
 * `requirements.txt` is optional. A package.json next to Python manifests is for front-end
 * assets: the service stays Python and node is reported as a secondary runtime.
 */

const PYTHON: readonly LanguageId[] = ['python'];
const DEFAULT_PYTHON = '3.12';
const PYTHON_MANIFESTS = ['pyproject.toml', 'requirements.txt', 'Pipfile', 'setup.py', 'setup.cfg', 'uv.lock', 'poetry.lock', 'environment.yml', 'environment.yaml'];

export const pythonLanguage: Language = {
  id: 'python',
  detect(service) {
    if (!PYTHON_MANIFESTS.some((name) => service.has(name))) return undefined;
    const secondary = service.has('package.json') ? ['secondary runtime: node (package.json for front-end assets)'] : [];
    return found<LanguageId>('python', 1, secondary);
  },
};

// ── Build systems ──────────────────────────────────────────────────────────────────────────────

interface PythonTool {
  id: 'uv' | 'poetry' | 'pdm' | 'pipenv' | 'conda' | 'pip';
  /** Lock files or pyproject tables that prove the tool owns the project. */
  claims(service: ServiceContext, pyproject: TomlTable | undefined): boolean;
  install(service: ServiceContext): string[];
  cache: string[];
  runPrefix?: string;
}

const PYTHON_TOOLS: PythonTool[] = [
  {
    id: 'uv',
    claims: (service, pyproject) => hasNearby(service, 'uv.lock') || !!tomlTable(pyproject, 'tool', 'uv'),
    install: (service) => [hasNearby(service, 'uv.lock') ? 'uv sync --frozen' : 'uv sync'],
    cache: ['~/.cache/uv', '.venv'],
    runPrefix: 'uv run ',
  },
  {
    id: 'poetry',
    claims: (service, pyproject) => service.has('poetry.lock') || !!tomlTable(pyproject, 'tool', 'poetry'),
    install: () => ['poetry install --no-interaction'],
    cache: ['~/.cache/pypoetry', '.venv'],
    runPrefix: 'poetry run ',
  },
  {
    id: 'pdm',
    claims: (service, pyproject) => service.has('pdm.lock') || !!tomlTable(pyproject, 'tool', 'pdm'),
    install: () => ['pdm install'],
    cache: ['~/.cache/pdm', '.venv'],
    runPrefix: 'pdm run ',
  },
  {
    id: 'pipenv',
    claims: (service) => service.has('Pipfile'),
    install: (service) => [service.has('Pipfile.lock') ? 'pipenv install --deploy' : 'pipenv install'],
    cache: ['~/.cache/pipenv', '~/.cache/pip'],
    runPrefix: 'pipenv run ',
  },
  {
    id: 'conda',
    claims: (service) => CONDA_FILES.some((name) => service.has(name)),
    install: (service) => [`conda env update --file ${CONDA_FILES.find((name) => service.has(name))} --prune`],
    cache: ['~/.conda/pkgs'],
    runPrefix: 'conda run ',
  },
  // pip installs a requirements file, or the project itself when a pyproject.toml / setup.py names
  // no other tool (setuptools, hatch and flit are build backends; pip is what installs).
  {
    id: 'pip',
    claims: (service) => ['requirements.txt', 'pyproject.toml', 'setup.py', 'setup.cfg'].some((name) => service.has(name)),
    install: (service) => [service.has('requirements.txt') ? 'pip install -r requirements.txt' : 'pip install .'],
    cache: ['~/.cache/pip'],
  },
];

function pythonBuild(tool: PythonTool): BuildSystem {
  return {
    id: tool.id,
    languages: PYTHON,
    async detect(service) {
      const pyproject = await service.toml('pyproject.toml');
      if (!tool.claims(service, pyproject)) return undefined;
      const projectName = tomlString(pyproject, 'project', 'name') ?? tomlString(pyproject, 'tool', 'poetry', 'name');
      return found<BuildPlan>({ id: tool.id, install: tool.install(service), build: [], cache: tool.cache, runPrefix: tool.runPrefix, projectName });
    },
  };
}

export const PYTHON_BUILD_SYSTEMS: BuildSystem[] = PYTHON_TOOLS.map(pythonBuild);

// ── Dependencies ───────────────────────────────────────────────────────────────────────────────

/** PEP 503 normalisation, so `Django`, `django_` and `django` compare equal. */
export function normalisePackage(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

/** The distribution name at the start of a PEP 508 requirement (`fastapi[all]>=0.110` → fastapi). */
export function requirementName(line: string): string | undefined {
  const trimmed = line.trim();
  if (!trimmed || trimmed.startsWith('#') || trimmed.startsWith('-')) return undefined;
  const match = trimmed.match(/^([A-Za-z0-9][A-Za-z0-9._-]*)/);
  return match ? normalisePackage(match[1]) : undefined;
}

export async function pythonDependencies(service: ServiceContext): Promise<Set<string>> {
  const names = new Set<string>();
  const add = (name: string | undefined) => name && names.add(name);
  for (const file of await requirementFiles(service)) {
    const slash = file.lastIndexOf('/');
    const text = slash < 0 ? await service.read(file) : await service.scan.read(joinDir(service.dir, file.slice(0, slash)), file.slice(slash + 1));
    text?.split(/\r?\n/).forEach((line) => add(requirementName(line)));
  }
  const pyproject = await service.toml('pyproject.toml');
  tomlStrings(pyproject, 'project', 'dependencies').forEach((line) => add(requirementName(line)));
  Object.keys(tomlTable(pyproject, 'tool', 'poetry', 'dependencies') ?? {}).forEach((name) => add(normalisePackage(name)));
  Object.keys(tomlTable(await service.toml('Pipfile'), 'packages') ?? {}).forEach((name) => add(normalisePackage(name)));
  for (const entry of await condaDependencies(service)) add(requirementName(entry.replace(/=.*/, '')));
  names.delete('python');
  return names;
}

/** requirements.txt and the files it includes (`-r base.txt`, `-r backend/requirements.txt`), one level deep. */
async function requirementFiles(service: ServiceContext): Promise<string[]> {
  if (!service.has('requirements.txt')) return [];
  const files = ['requirements.txt'];
  for (const line of ((await service.read('requirements.txt')) ?? '').split(/\r?\n/)) {
    const include = line.trim().match(/^(?:-r|--requirement)\s*=?\s*(\S+)$/)?.[1];
    if (include && !include.includes('..') && !include.startsWith('/')) files.push(include);
  }
  return files;
}

/** conda's environment.yml: `dependencies` strings (`flask=2.0.2`) and the nested `pip:` list. */
async function condaDependencies(service: ServiceContext): Promise<string[]> {
  const file = CONDA_FILES.find((name) => service.has(name));
  if (!file) return [];
  const environment = await service.scan.yaml<{ dependencies?: (string | { pip?: string[] })[] }>(service.dir, file);
  return (environment?.dependencies ?? []).flatMap((entry) => (typeof entry === 'string' ? [entry] : (entry?.pip ?? [])));
}

const CONDA_FILES = ['environment.yml', 'environment.yaml'];

// ── Frameworks ─────────────────────────────────────────────────────────────────────────────────

function pythonFramework(id: FrameworkId, plan: (service: ServiceContext, deps: Set<string>) => FrameworkPlan, marker?: (service: ServiceContext) => boolean, packages: string[] = [id]): Framework {
  return {
    id,
    languages: PYTHON,
    async detect(service) {
      const deps = await pythonDependencies(service);
      const marked = packages.some((name) => deps.has(name)) || marker?.(service) === true;
      return marked ? found(plan(service, deps)) : undefined;
    },
  };
}

/** A server framework started by an ASGI/WSGI server: uvicorn for ASGI apps, gunicorn for WSGI ones. */
function served(id: FrameworkId, kind: 'asgi' | 'wsgi', port = 8000): (service: ServiceContext, deps: Set<string>) => FrameworkPlan {
  return (service, deps) => {
    const module = (firstFile(service, ['main.py', 'app.py', 'app/main.py', 'src/main.py', 'server.py', 'wsgi.py', 'asgi.py']) ?? 'app.py').replace(/\.py$/, '').replace(/\//g, '.');
    const start =
      kind === 'asgi' || !deps.has('gunicorn')
        ? kind === 'asgi'
          ? `uvicorn ${module}:app --host 0.0.0.0 --port ${port}`
          : `python ${module.replace(/\./g, '/')}.py`
        : `gunicorn ${module}:app --bind 0.0.0.0:${port}`;
    return { id, start, ports: [port] };
  };
}

function script(id: FrameworkId, port: number, command = (entry: string) => `python ${entry}`): (service: ServiceContext) => FrameworkPlan {
  return (service) => ({ id, start: command(firstFile(service, ['app.py', 'main.py', 'server.py']) ?? 'app.py'), ports: [port] });
}

function firstFile(service: ServiceContext, candidates: string[]): string | undefined {
  return candidates.find((candidate) => {
    const slash = candidate.lastIndexOf('/');
    const dir = slash < 0 ? service.dir : joinDir(service.dir, candidate.slice(0, slash));
    return service.scan.has(dir, candidate.slice(slash + 1));
  });
}

function joinDir(dir: string, child: string): string {
  return dir === '.' ? child : `${dir}/${child}`;
}

function djangoPlan(service: ServiceContext, deps: Set<string>): FrameworkPlan {
  const settingsPackage = childDirectories(service).find((dir) => service.scan.has(dir, 'wsgi.py'));
  const start =
    settingsPackage && deps.has('gunicorn')
      ? `gunicorn ${basename(settingsPackage)}.wsgi:application --bind 0.0.0.0:8000`
      : 'python manage.py runserver 0.0.0.0:8000';
  return { id: 'django', start, ports: [8000] };
}

function fastapiPlan(service: ServiceContext): FrameworkPlan {
  const entry = firstFile(service, ['main.py', 'app/main.py', 'src/main.py', 'app.py']) ?? 'main.py';
  const module = entry.replace(/\.py$/, '').replace(/\//g, '.');
  return { id: 'fastapi', start: `uvicorn ${module}:app --host 0.0.0.0 --port 8000`, ports: [8000] };
}

function flaskPlan(service: ServiceContext, deps: Set<string>): FrameworkPlan {
  const module = (firstFile(service, ['app.py', 'wsgi.py', 'main.py']) ?? 'app.py').replace(/\.py$/, '');
  const start = deps.has('gunicorn') ? `gunicorn ${module}:app --bind 0.0.0.0:5000` : `flask --app ${module} run --host 0.0.0.0 --port 5000`;
  return { id: 'flask', start, ports: [5000] };
}

function streamlitPlan(service: ServiceContext): FrameworkPlan {
  const entry = firstFile(service, ['streamlit_app.py', 'app.py', 'main.py']) ?? 'app.py';
  return { id: 'streamlit', start: `streamlit run ${entry} --server.port 8501 --server.address 0.0.0.0`, ports: [8501] };
}

/*
 * In priority order: an app builder over the server it embeds (Gradio and Chainlit ship FastAPI,
 * Dash ships Flask), a framework over the toolkit beneath it (FastAPI over Starlette), and the
 * documentation generator last, since docs sit beside applications.
 */
export const PYTHON_FRAMEWORKS: Framework[] = [
  pythonFramework('streamlit', streamlitPlan),
  pythonFramework(custom('gradio'), script(custom('gradio'), 7860)),
  pythonFramework(custom('chainlit'), (service) => ({ id: custom('chainlit'), start: `chainlit run ${firstFile(service, ['app.py', 'main.py']) ?? 'app.py'} --host 0.0.0.0 --port 8000`, ports: [8000] })),
  pythonFramework(custom('dash'), script(custom('dash'), 8050)),
  pythonFramework(custom('reflex'), () => ({ id: custom('reflex'), start: 'reflex run --env prod', ports: [3000, 8000] })),
  pythonFramework('django', djangoPlan, (service) => service.has('manage.py')),
  pythonFramework(custom('langserve'), served(custom('langserve'), 'asgi')),
  pythonFramework('fastapi', fastapiPlan),
  pythonFramework(custom('litestar'), served(custom('litestar'), 'asgi')),
  pythonFramework('flask', flaskPlan),
  pythonFramework(custom('quart'), served(custom('quart'), 'asgi')),
  pythonFramework(custom('sanic'), (service) => ({ id: custom('sanic'), start: `sanic ${(firstFile(service, ['server.py', 'main.py', 'app.py']) ?? 'server.py').replace(/\.py$/, '')}:app --host 0.0.0.0 --port 8000`, ports: [8000] })),
  pythonFramework(custom('starlette'), served(custom('starlette'), 'asgi')),
  pythonFramework(custom('tornado'), script(custom('tornado'), 8888)),
  pythonFramework(custom('aiohttp'), script(custom('aiohttp'), 8080)),
  pythonFramework(custom('bottle'), script(custom('bottle'), 8080)),
  pythonFramework(custom('falcon'), served(custom('falcon'), 'wsgi')),
  pythonFramework(custom('pyramid'), served(custom('pyramid'), 'wsgi', 6543)),
  pythonFramework(custom('mkdocs'), () => ({ id: custom('mkdocs'), ports: [] }), (service) => service.has('mkdocs.yml') || service.has('mkdocs.yaml')),
];

// ── Runtime ────────────────────────────────────────────────────────────────────────────────────

export const pythonRuntime: Runtime = {
  id: 'python',
  languages: PYTHON,
  async detect(service, stack) {
    const pyproject = await service.toml('pyproject.toml');
    const manifest = tomlString(pyproject, 'project', 'requires-python') ?? tomlString(pyproject, 'tool', 'poetry', 'dependencies', 'python');
    const version = manifest
      ? { requested: manifest, source: 'pyproject.toml requires-python' }
      : ((await versionFromFiles(service, ['.python-version'], ['python'])) ?? { requested: DEFAULT_PYTHON, source: 'default' });
    const procfile = await procfileWeb(service);
    const conventional = stack.framework?.start && `${stack.build.runPrefix ?? ''}${stack.framework.start}`;
    return found({
      name: 'python' as const,
      version,
      command: procfile ?? conventional,
      ports: stack.framework?.ports ?? [],
      base_image: `python:${majorOf(version.requested) ?? DEFAULT_PYTHON}-slim`,
    });
  },
};
