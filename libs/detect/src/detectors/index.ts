import type { DetectorSet } from '../model';
import { GO_FRAMEWORKS, goBuild, goLanguage, goRuntime, goWork } from './go';
import {
  bunRuntime, denoLanguage, denoRuntime, JS_BUILD_SYSTEMS, JS_FRAMEWORKS, javascriptLanguage, lerna, nodeRuntime, nx,
  packageJsonWorkspaces, pnpmWorkspaces, turborepo,
} from './javascript';
import { gradleBuild, gradleMultiProject, javaRuntime, JVM_FRAMEWORKS, jvmLanguage, mavenBuild, mavenModules } from './jvm';
import { TABLE_BUILD_SYSTEMS, TABLE_FRAMEWORK_DETECTORS, TABLE_LANGUAGES, TABLE_RUNTIMES } from './manifest-table';
import { moon, rush, uvWorkspace } from './monorepo-tools';
import { OTHER_DETECTORS } from './others';
import { PYTHON_BUILD_SYSTEMS, PYTHON_FRAMEWORKS, pythonLanguage, pythonRuntime } from './python';
import { cargoBuild, cargoWorkspace, RUST_FRAMEWORKS, rustLanguage, rustRuntime } from './rust';
import { sourceOnlyBuild, sourceOnlyLanguage, sourceOnlyRuntime } from './source-only';
import { staticSiteBuild, staticSiteFramework, staticSiteLanguage, staticSiteRuntime } from './static-sites';

/*
 * The deterministic registry, in priority order. Languages whose manifests are unambiguous come
 * first; JavaScript is last because a package.json also sits beside Python, Ruby, PHP and JVM
 * apps for their front-end assets. Deno comes before node so a deno.json wins over a package.json
 * kept for editor tooling. The manifest table (C/C++, Swift, Dart, Haskell…) comes last: CMakeLists.txt
 * and friends also sit beside other stacks' native extensions.
 */
export const STATIC_DETECTORS: DetectorSet = {
  orchestrators: [rush, moon, pnpmWorkspaces, packageJsonWorkspaces, cargoWorkspace, goWork, uvWorkspace, mavenModules, gradleMultiProject, turborepo, nx, lerna],
  languages: [
    rustLanguage, goLanguage, jvmLanguage, ...OTHER_DETECTORS.languages, pythonLanguage, staticSiteLanguage, denoLanguage, javascriptLanguage,
    ...TABLE_LANGUAGES, sourceOnlyLanguage,
  ],
  buildSystems: [
    cargoBuild, goBuild, mavenBuild, gradleBuild, ...OTHER_DETECTORS.buildSystems, ...PYTHON_BUILD_SYSTEMS, staticSiteBuild, ...JS_BUILD_SYSTEMS,
    ...TABLE_BUILD_SYSTEMS, sourceOnlyBuild,
  ],
  frameworks: [...RUST_FRAMEWORKS, ...GO_FRAMEWORKS, ...JVM_FRAMEWORKS, ...OTHER_DETECTORS.frameworks, ...PYTHON_FRAMEWORKS, staticSiteFramework, ...JS_FRAMEWORKS, ...TABLE_FRAMEWORK_DETECTORS],
  runtimes: [
    sourceOnlyRuntime, rustRuntime, goRuntime, javaRuntime, ...OTHER_DETECTORS.runtimes, pythonRuntime, staticSiteRuntime, denoRuntime, bunRuntime, nodeRuntime,
    ...TABLE_RUNTIMES,
  ],
};
