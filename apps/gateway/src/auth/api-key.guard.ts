import { CanActivate, ExecutionContext, Injectable, createParamDecorator } from '@nestjs/common';
import type { Request } from 'express';
import { AccessService, tokenFromHeader } from './access.service';
import { Principal } from './principal';

type AuthedRequest = Request & { principal?: Principal };

/** REST: resolves the caller before any handler runs; refusals become typed 401s. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(private readonly access: AccessService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthedRequest>();
    request.principal = await this.access.authenticate(tokenFromHeader(request.headers.authorization));
    return true;
  }
}

export const CurrentPrincipal = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Principal =>
    context.switchToHttp().getRequest<AuthedRequest>().principal ?? { kind: 'anonymous' },
);
