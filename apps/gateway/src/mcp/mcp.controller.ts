import { All, Controller, Inject, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { QUARRY_CONFIG, QuarryConfig, isLoopbackHost } from '@quarry/config';
import { QuarryError, isQuarryError } from '@quarry/contracts';
import { AccessService, tokenFromHeader } from '../auth/access.service';
import { McpSessions } from './mcp-sessions';

/**
 * `/mcp`: the MCP Streamable HTTP transport (POST messages, GET the server's event stream,
 * DELETE to end a session), with the same API keys as REST as Bearer tokens.
 */
@Controller('mcp')
export class McpController {
  constructor(
    @Inject(QUARRY_CONFIG) private readonly config: QuarryConfig,
    private readonly access: AccessService,
    private readonly sessions: McpSessions,
  ) {}

  @All()
  async serve(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.refuseRebinding(request);
    let principal;
    try {
      principal = await this.access.authenticate(tokenFromHeader(request.headers.authorization));
    } catch (error) {
      // MCP clients read the challenge to learn which scheme to use.
      if (isQuarryError(error) && error.kind === 'unauthorized') response.setHeader('WWW-Authenticate', 'Bearer realm="quarry"');
      throw error;
    }
    await this.sessions.handle(request, response, principal);
  }

  /**
   * A gateway on loopback answers only requests addressed to loopback: a web page whose DNS name
   * was rebound to 127.0.0.1 sends its own host name (and origin), and is refused.
   */
  private refuseRebinding(request: Request): void {
    if (!isLoopbackHost(this.config.host)) return;
    const origin = request.headers.origin;
    for (const [header, value] of [
      ['Host', request.headers.host],
      ['Origin', origin],
    ] as const) {
      if (value === undefined || value === 'null') continue;
      const hostname = hostnameOf(header === 'Origin' ? value : `http://${value}`);
      if (hostname === undefined || !isLoopbackHost(hostname.replace(/^\[|\]$/g, ''))) {
        throw new QuarryError('forbidden', `This gateway listens on loopback and does not answer ${header} "${value}".`, {
          suggestion: 'Connect to http://127.0.0.1:PORT/mcp (or localhost); to serve other hosts, bind QUARRY_HOST to them and use API keys.',
        });
      }
    }
  }
}

function hostnameOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}
