import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { mentionsParseRequestSchema, parseOrThrow } from '@quarry/contracts';
import { parseMentions, type ParseResult } from '@quarry/mentions';
import { ApiKeyGuard } from '../auth/api-key.guard';

/**
 * The mention grammar, synchronously: what a prompt's mentions are, with spans and syntax errors
 * (and their fix-its), without loading anything. Editors use it to highlight mentions as you type.
 */
@Controller('v1/mentions')
@UseGuards(ApiKeyGuard)
export class MentionsController {
  @Post('parse')
  @HttpCode(200)
  parse(@Body() body: unknown): ParseResult {
    return parseMentions(parseOrThrow(mentionsParseRequestSchema, body, 'body').text);
  }
}
