import { Module } from '@nestjs/common';
import { WebAssets } from './web-assets';
import { WebController } from './web.controller';

/** Serves the browser dashboard (apps/web, built into dist/web/public). GET / itself is RootController. */
@Module({
  controllers: [WebController],
  providers: [{ provide: WebAssets, useFactory: () => new WebAssets() }],
  exports: [WebAssets],
})
export class WebModule {}
