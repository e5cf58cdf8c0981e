/**
 * The configuration without the NestJS module or the logger: what a command-line process needs
 * (`@quarry/config/settings`). Importing the library's index loads NestJS and pino, ~80 ms a
 * start-up that `quarry search` and `quarry mention` do not need.
 */
export { ConfigError, DEFAULT_DATABASE_URL, isLoopbackHost, loadConfig, type QuarryConfig } from './quarry-config';
export { packageVersion } from './package-version';
