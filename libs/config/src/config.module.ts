import { Global, Module } from '@nestjs/common';
import { loadConfig, QuarryConfig } from './quarry-config';

/** Injection token for the validated configuration. */
export const QUARRY_CONFIG = Symbol('QUARRY_CONFIG');

@Global()
@Module({})
export class ConfigModule {
  /** Uses the given config (tests, the CLI) or validates the environment once. */
  static forRoot(config?: QuarryConfig) {
    return {
      module: ConfigModule,
      providers: [{ provide: QUARRY_CONFIG, useFactory: () => config ?? loadConfig() }],
      exports: [QUARRY_CONFIG],
    };
  }
}
