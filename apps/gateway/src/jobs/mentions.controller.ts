import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { z } from 'zod';
import { parseOrThrow } from '@quarry/contracts';
import { parseMentions, type ParseResult } from '@quarry/mentions';
import { ApiKeyGuard } from '../auth/api-key.guard';

const parseRequestSchema = z.object({ text: z.string().max(1_000_000) });

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
    return parseMentions(parseOrThrow(parseRequestSchema, body, 'body').text);
  }
}
