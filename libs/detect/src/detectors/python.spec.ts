import { detectOne, removeFixtures } from '../testing/fixture';
import { requirementName } from './python';

afterAll(removeFixtures);

const pyproject = (body = '') => `[project]\nname = "svc"\nrequires-python = ">=3.11"\ndependencies = [\n  "fastapi[standard]>=0.110",\n  "uvicorn",\n]\n${body}`;

describe('Python build systems', () => {
  it.each([
    ['uv', { 'pyproject.toml': pyproject(), 'uv.lock': '' }, 'uv sync --frozen'],
    ['poetry', { 'pyproject.toml': '[tool.poetry]\nname = "svc"\n[tool.poetry.dependencies]\npython = "^3.10"\n', 'poetry.lock': '' }, 'poetry install --no-interaction'],
    ['pdm', { 'pyproject.toml': pyproject(), 'pdm.lock': '' }, 'pdm install'],
    ['pipenv', { Pipfile: '[packages]\nflask = "*"\n', 'Pipfile.lock': '{}' }, 'pipenv install --deploy'],
    ['pip', { 'requirements.txt': 'flask==3.0\n' }, 'pip install -r requirements.txt'],
    // setuptools, hatch and flit are build backends; what installs a plain pyproject or setup.py is pip.
    ['pip', { 'setup.py': 'from setuptools import setup\n' }, 'pip install .'],
    ['pip', { 'pyproject.toml': pyproject() }, 'pip install .'],
    ['conda', { 'environment.yml': 'dependencies:\n  - python=3.11\n  - flask=3.0\n' }, 'conda env update --file environment.yml --prune'],
  ])('%s', async (system, files, install) => {
    const build = await detectOne(files);
    expect(build.metadata).toMatchObject({ language: 'python', build_system: system, confidence: 1 });
    expect(build.build.commands).toEqual([install]);
  });

  it('pyproject.toml + uv.lock is enough without requirements.txt, and names the project', async () => {
    const build = await detectOne({ 'pyproject.toml': pyproject(), 'uv.lock': '', 'main.py': '' });
    expect(build.metadata).toMatchObject({ project_name: 'svc', framework: 'fastapi' });
    expect(build.runtime).toMatchObject({ name: 'python', command: 'uv run uvicorn main:app --host 0.0.0.0 --port 8000', ports: [8000] });
    expect(build.build.cache).toEqual(['~/.cache/uv', '.venv']);
  });
});

describe('Python frameworks', () => {
  it('django with gunicorn starts the wsgi module', async () => {
    const build = await detectOne({ 'requirements.txt': 'Django>=5\ngunicorn\n', 'manage.py': '', 'mysite/wsgi.py': '' });
    expect(build.metadata.framework).toBe('django');
    expect(build.runtime.command).toBe('gunicorn mysite.wsgi:application --bind 0.0.0.0:8000');
  });

  it('flask from Pipfile packages, streamlit from requirements', async () => {
    expect((await detectOne({ Pipfile: '[packages]\nFlask = "*"\n', 'app.py': '' })).runtime.command).toBe('pipenv run flask --app app run --host 0.0.0.0 --port 5000');
    const streamlit = await detectOne({ 'requirements.txt': 'streamlit\n', 'streamlit_app.py': '' });
    expect(streamlit.metadata.framework).toBe('streamlit');
    expect(streamlit.runtime.ports).toEqual([8501]);
  });

  it('fastapi under app/ from poetry dependencies', async () => {
    const build = await detectOne({ 'pyproject.toml': '[tool.poetry]\nname="x"\n[tool.poetry.dependencies]\nfastapi = "^0.110"\n', 'app/main.py': '' });
    expect(build.runtime.command).toBe('poetry run uvicorn app.main:app --host 0.0.0.0 --port 8000');
  });

  it('a Procfile web process wins over the convention', async () => {
    const build = await detectOne({ 'requirements.txt': 'flask\n', Procfile: 'web: gunicorn app:server\nworker: celery\n' });
    expect(build.runtime.command).toBe('gunicorn app:server');
  });

  it('does not match on substrings (flask-cors alone is not flask)', async () => {
    expect((await detectOne({ 'requirements.txt': 'flask-cors\ndjango-environ\n' })).metadata.framework).toBeUndefined();
  });
});

describe('Python versions and secondary runtimes', () => {
  it('requires-python beats .python-version', async () => {
    const build = await detectOne({ 'pyproject.toml': pyproject(), '.python-version': '3.9' });
    expect(build.runtime.version).toEqual({ requested: '>=3.11', source: 'pyproject.toml requires-python' });
    expect(build.runtime.base_image).toBe('python:3.11-slim');
  });

  it('.python-version, then the default', async () => {
    expect((await detectOne({ 'requirements.txt': '', '.python-version': '3.10.4\n' })).runtime.version).toEqual({ requested: '3.10.4', source: '.python-version' });
    expect((await detectOne({ 'requirements.txt': '' })).runtime.version.source).toBe('default');
  });

  it('a Python app with a package.json for assets stays Python, node noted as secondary', async () => {
    const build = await detectOne({ 'requirements.txt': 'django\n', 'manage.py': '', 'package.json': { scripts: { build: 'vite build' }, devDependencies: { vite: '5' } } });
    expect(build.metadata).toMatchObject({ language: 'python', framework: 'django' });
    expect(build.metadata.warnings).toContain('secondary runtime: node (package.json for front-end assets)');
  });

  it('reads requirement names per PEP 508', () => {
    expect(requirementName('FastAPI[all]>=0.1 ; python_version > "3"')).toBe('fastapi');
    expect(requirementName('-r base.txt')).toBeUndefined();
    expect(requirementName('zope.interface==6')).toBe('zope-interface');
  });
});
