import { detectFixture, detectOne, removeFixtures } from '../testing/fixture';
import { gradleIncludes, pomArtifactId } from './jvm';

afterAll(removeFixtures);

const pom = (body: string, artifact = 'shop') => `<?xml version="1.0"?>
<project>
  <parent><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-parent</artifactId></parent>
  <artifactId>${artifact}</artifactId>
  ${body}
</project>`;

describe('Maven', () => {
  it('spring-boot with the wrapper, java.version and actuator', async () => {
    const build = await detectOne({
      'pom.xml': pom('<properties><java.version>17</java.version></properties><dependencies><dependency><artifactId>spring-boot-starter-actuator</artifactId></dependency></dependencies>'),
      mvnw: '',
    });
    expect(build.metadata).toMatchObject({ project_name: 'shop', language: 'java', build_system: 'maven', framework: 'spring-boot' });
    expect(build.build.commands).toEqual(['./mvnw -B dependency:go-offline', './mvnw -B package -DskipTests']);
    expect(build.runtime).toMatchObject({
      name: 'java',
      version: { requested: '17', source: 'pom.xml' },
      command: 'java -jar target/*.jar',
      ports: [8080],
      health: '/actuator/health',
      base_image: 'eclipse-temurin:17-jre',
    });
  });

  it('maven modules: one service per module, -pl commands', async () => {
    const builds = await detectFixture({
      'pom.xml': '<project><artifactId>parent</artifactId><modules><module>api</module><module>core</module></modules></project>',
      'api/pom.xml': '<project><artifactId>api</artifactId><dependencies><dependency><groupId>io.quarkus</groupId></dependency></dependencies></project>',
      'core/pom.xml': '<project><artifactId>core</artifactId></project>',
    });
    expect(builds.map((b) => b.metadata.path)).toEqual(['api', 'core']);
    expect(builds[0].metadata.framework).toBe('quarkus');
    expect(builds[0].workspace).toMatchObject({ orchestrator: 'maven-modules', manager: 'maven' });
    expect(builds[0].build.commands).toEqual(['mvn -B dependency:go-offline', 'mvn -B -pl api -am package -DskipTests']);
    expect(builds[0].runtime.command).toBe('java -jar api/target/quarkus-app/quarkus-run.jar');
  });

  it('reads the own artifactId, not the parent one', () => {
    expect(pomArtifactId(pom('', 'mine'))).toBe('mine');
  });
});

describe('Gradle', () => {
  it('kotlin DSL + ktor + wrapper + toolchain', async () => {
    const build = await detectOne({
      'settings.gradle.kts': 'rootProject.name = "chat"\n',
      'build.gradle.kts': 'plugins { kotlin("jvm") version "2.0.0"; id("io.ktor.plugin") }\nkotlin { jvmToolchain(21) }\n',
      gradlew: '',
      'src/main/kotlin/App.kt': '',
    });
    expect(build.metadata).toMatchObject({ project_name: 'chat', language: 'kotlin', build_system: 'gradle', framework: 'ktor' });
    expect(build.build.commands).toEqual(['./gradlew build -x test']);
    expect(build.runtime).toMatchObject({ version: { requested: '21', source: 'build.gradle' }, command: 'java -jar build/libs/*.jar' });
  });

  it('groovy DSL with micronaut and .java-version', async () => {
    const build = await detectOne({ 'build.gradle': "plugins { id 'io.micronaut.application' }\n", '.java-version': '17\n' });
    expect(build.metadata).toMatchObject({ language: 'java', framework: 'micronaut' });
    expect(build.runtime.version).toEqual({ requested: '17', source: '.java-version' });
    expect(build.build.commands).toEqual(['gradle build -x test']);
  });

  it('multi-project: one service per included project', async () => {
    const builds = await detectFixture({
      'settings.gradle': "rootProject.name = 'mono'\ninclude 'app', ':libs:core'\n",
      gradlew: '',
      'app/build.gradle': "plugins { id 'org.springframework.boot' version '3.3.0' }\n",
      'libs/core/build.gradle': '',
    });
    expect(builds.map((b) => b.metadata.path)).toEqual(['app', 'libs/core']);
    expect(builds[0].metadata.framework).toBe('spring-boot');
    expect(builds[0].build.commands).toEqual(['./gradlew :app:build -x test']);
    expect(builds[1].build.commands).toEqual(['./gradlew :libs:core:build -x test']);
  });

  it('parses include statements in both DSLs', () => {
    expect(gradleIncludes('include(":a", ":b:c")\ninclude \'d\'\n// include("x")')).toEqual(['a', 'b:c', 'd']);
  });
});
