import { custom, type FrameworkId, type LanguageId } from '../ids';
import type { BuildPlan, BuildSystem, Framework, FrameworkPlan, Language, Orchestrator, Runtime, ServiceContext, WorkspaceMember } from '../model';
import { basename, found, hasNearby, majorOf, versionFromFiles } from './shared';

/*
 * Java and Kotlin on Maven (+ wrapper, modules) and Gradle (groovy/kts, + wrapper, multi-project);
 * spring-boot, quarkus, micronaut, ktor. Build files are code (Gradle) or verbose XML (Maven), so
 * these detectors look for exact group ids and plugin ids, never parse the build.
 */

const JVM: readonly LanguageId[] = ['java', 'kotlin'];
const DEFAULT_JAVA = '21';
const GRADLE_FILES = ['build.gradle.kts', 'build.gradle'];
const SETTINGS_FILES = ['settings.gradle.kts', 'settings.gradle'];

async function buildFileText(service: ServiceContext): Promise<string | undefined> {
  for (const name of ['pom.xml', ...GRADLE_FILES]) {
    const text = await service.read(name);
    if (text !== undefined) return text;
  }
  return undefined;
}

function isGradle(service: ServiceContext): boolean {
  return [...GRADLE_FILES, ...SETTINGS_FILES].some((name) => service.has(name));
}

export const jvmLanguage: Language = {
  id: 'java',
  async detect(service) {
    const text = await buildFileText(service);
    if (text === undefined && !isGradle(service)) return undefined;
    const kotlinSources = service.scan.directories.includes(service.dir === '.' ? 'src/main/kotlin' : `${service.dir}/src/main/kotlin`);
    const kotlinPlugin = /org\.jetbrains\.kotlin|kotlin\("jvm"\)|kotlin-maven-plugin/.test(text ?? '');
    return found<LanguageId>(kotlinSources || kotlinPlugin ? 'kotlin' : 'java');
  },
};

// ── Build systems ──────────────────────────────────────────────────────────────────────────────

function mavenCommand(service: ServiceContext): string {
  return hasNearby(service, 'mvnw') ? './mvnw' : 'mvn';
}

function gradleCommand(service: ServiceContext): string {
  return hasNearby(service, 'gradlew') ? './gradlew' : 'gradle';
}

/** The project's own artifactId: the first one outside <parent>, <dependencies> and <build>. */
export function pomArtifactId(pom: string): string | undefined {
  const own = pom.replace(/<parent>[\s\S]*?<\/parent>|<dependencies>[\s\S]*?<\/dependencies>|<build>[\s\S]*?<\/build>|<dependencyManagement>[\s\S]*?<\/dependencyManagement>/g, '');
  return own.match(/<artifactId>\s*([^<\s]+)\s*<\/artifactId>/)?.[1];
}

export const mavenBuild: BuildSystem = {
  id: 'maven',
  languages: JVM,
  async detect(service) {
    const pom = await service.read('pom.xml');
    if (pom === undefined) return undefined;
    const mvn = mavenCommand(service);
    return found<BuildPlan>({
      id: 'maven',
      install: [`${mvn} -B dependency:go-offline`],
      build: [`${mvn} -B package -DskipTests`],
      cache: ['~/.m2/repository'],
      projectName: pomArtifactId(pom),
    });
  },
};

async function gradleSettings(service: ServiceContext): Promise<string | undefined> {
  for (const name of SETTINGS_FILES) {
    const text = await service.read(name);
    if (text !== undefined) return text;
  }
  return undefined;
}

export const gradleBuild: BuildSystem = {
  id: 'gradle',
  languages: JVM,
  async detect(service) {
    if (!isGradle(service)) return undefined;
    const settings = await gradleSettings(service);
    const gradle = gradleCommand(service);
    return found<BuildPlan>({
      id: 'gradle',
      install: [],
      build: [`${gradle} build -x test`],
      cache: ['~/.gradle/caches', '~/.gradle/wrapper'],
      projectName: settings?.match(/rootProject\.name\s*=\s*["']([^"']+)["']/)?.[1],
    });
  },
};

// ── Multi-module layouts ───────────────────────────────────────────────────────────────────────

export const mavenModules: Orchestrator = {
  id: 'maven-modules',
  role: 'members',
  async detect(root) {
    const pom = await root.read('pom.xml');
    const modules = [...(pom ?? '').matchAll(/<module>\s*([^<\s]+)\s*<\/module>/g)].map((match) => match[1].replace(/\/+$/, ''));
    if (modules.length === 0) return undefined;
    const members: WorkspaceMember[] = [];
    for (const dir of modules.filter((module) => root.scan.has(module, 'pom.xml'))) {
      members.push({ dir, name: pomArtifactId((await root.scan.read(dir, 'pom.xml')) ?? '') ?? basename(dir) });
    }
    const mvn = mavenCommand(root);
    return found({
      orchestrator: 'maven-modules' as const,
      manager: 'maven' as const,
      sharedInstall: true,
      members,
      buildCommand: (member: WorkspaceMember) => `${mvn} -B -pl ${member.dir} -am package -DskipTests`,
    });
  },
};

/** `include(":app", ":libs:core")` / `include 'app'` → project paths. */
export function gradleIncludes(settings: string): string[] {
  const projects: string[] = [];
  for (const statement of settings.matchAll(/^\s*include\s*\(?([^)\n]*)\)?/gm)) {
    for (const quoted of statement[1].matchAll(/["']([^"']+)["']/g)) projects.push(quoted[1].replace(/^:/, ''));
  }
  return projects;
}

export const gradleMultiProject: Orchestrator = {
  id: 'gradle-multi-project',
  role: 'members',
  async detect(root) {
    const settings = await gradleSettings(root);
    const projects = gradleIncludes(settings ?? '');
    if (projects.length === 0) return undefined;
    const members = projects
      .map((project) => ({ dir: project.replace(/:/g, '/'), name: project }))
      .filter((member) => GRADLE_FILES.some((name) => root.scan.has(member.dir, name)));
    const gradle = gradleCommand(root);
    return found({
      orchestrator: 'gradle-multi-project' as const,
      manager: 'gradle' as const,
      sharedInstall: true,
      members,
      buildCommand: (member: WorkspaceMember) => `${gradle} :${member.name}:build -x test`,
    });
  },
};

// ── Frameworks ─────────────────────────────────────────────────────────────────────────────────

const JVM_FRAMEWORK_MARKERS: { id: FrameworkId; marker: RegExp; health?: [RegExp, string] }[] = [
  { id: 'spring-boot', marker: /org\.springframework\.boot/, health: [/spring-boot-starter-actuator/, '/actuator/health'] },
  { id: 'quarkus', marker: /io\.quarkus/, health: [/quarkus-smallrye-health/, '/q/health'] },
  { id: 'micronaut', marker: /io\.micronaut/ },
  { id: 'ktor', marker: /io\.ktor/ },
  { id: custom('helidon'), marker: /io\.helidon/ },
  { id: custom('dropwizard'), marker: /io\.dropwizard/ },
  { id: custom('vertx'), marker: /io\.vertx/ },
  { id: custom('javalin'), marker: /io\.javalin/ },
  { id: custom('spark'), marker: /com\.sparkjava/ },
];

export const JVM_FRAMEWORKS: Framework[] = JVM_FRAMEWORK_MARKERS.map(({ id, marker, health }) => ({
  id,
  languages: JVM,
  async detect(service) {
    const text = await buildFileText(service);
    if (!text || !marker.test(text)) return undefined;
    const plan: FrameworkPlan = { id, ports: [8080] };
    if (health && health[0].test(text)) plan.health = health[1];
    return found(plan);
  },
}));

// ── Runtime ────────────────────────────────────────────────────────────────────────────────────

const JAVA_VERSION_PATTERNS = [
  /<java\.version>\s*([\d.]+)\s*</,
  /<maven\.compiler\.release>\s*([\d.]+)\s*</,
  /<maven\.compiler\.source>\s*([\d.]+)\s*</,
  /JavaLanguageVersion\.of\(\s*(\d+)\s*\)/,
  /jvmToolchain\(\s*(\d+)\s*\)/,
  /JavaVersion\.VERSION_(\d+(?:_\d+)?)/,
  /sourceCompatibility\s*=\s*['"]?([\d.]+)/,
];

export const javaRuntime: Runtime = {
  id: 'java',
  languages: JVM,
  async detect(service, stack) {
    const text = (await buildFileText(service)) ?? '';
    const source = stack.build.id === 'maven' ? 'pom.xml' : 'build.gradle';
    const manifest = JAVA_VERSION_PATTERNS.map((pattern) => text.match(pattern)?.[1]).find(Boolean)?.replace('_', '.');
    const version = manifest
      ? { requested: manifest, source }
      : ((await versionFromFiles(service, ['.java-version'], ['java'])) ?? { requested: DEFAULT_JAVA, source: 'default' });
    return found({
      name: 'java' as const,
      version,
      command: javaCommand(service, stack.build.id, stack.framework?.id),
      ports: stack.framework?.ports ?? [],
      health: stack.framework?.health,
      base_image: `eclipse-temurin:${majorOf(version.requested)?.replace(/^1\./, '').split('.')[0] ?? DEFAULT_JAVA}-jre`,
    });
  },
};

function javaCommand(service: ServiceContext, build: string, framework: string | undefined): string {
  const output = build === 'maven' ? 'target' : 'build/libs';
  const prefix = service.workspace && service.dir !== '.' ? `${service.dir}/` : '';
  if (framework === 'quarkus') return `java -jar ${prefix}${output === 'target' ? 'target/quarkus-app' : 'build/quarkus-app'}/quarkus-run.jar`;
  return `java -jar ${prefix}${output}/*.jar`;
}
