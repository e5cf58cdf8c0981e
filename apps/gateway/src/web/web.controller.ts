import { Controller, Get, Param, Res } from '@nestjs/common';
import type { Response } from 'express';
import { QuarryError } from '@quarry/contracts';
import { WebAssets } from './web-assets';

/** Static files of the browser dashboard. Public: the page must load to ask for a key. */
@Controller()
export class WebController {
  constructor(private readonly assets: WebAssets) {}

  @Get('styles.css')
  styles(@Res() response: Response): void {
    this.serve(response, '', 'styles.css');
  }

  @Get('assets/:file')
  asset(@Param('file') file: string, @Res() response: Response): void {
    this.serve(response, 'assets', file);
  }

  @Get('vendor/:file')
  vendor(@Param('file') file: string, @Res() response: Response): void {
    this.serve(response, 'vendor', file);
  }

  private serve(response: Response, folder: '' | 'assets' | 'vendor', file: string): void {
    if (!this.assets.send(response, folder, file)) {
      throw new QuarryError('not_found', `No dashboard file ${folder ? `${folder}/` : ''}${file}.`, {
        suggestion: this.assets.built ? undefined : 'Build the dashboard with `npm run build`.',
      });
    }
  }
}
