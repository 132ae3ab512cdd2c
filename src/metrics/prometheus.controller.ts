import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { PrometheusController } from '@willsoto/nestjs-prometheus';
import type { FastifyReply } from 'fastify';
import { Public } from '../access/access.decorators';

/** The scrape endpoint is public, as the spec lists it. */
@ApiExcludeController()
@Controller()
export class PublicPrometheusController extends PrometheusController {
  @Public()
  @Get()
  override async index(@Res({ passthrough: true }) response: FastifyReply): Promise<string> {
    return super.index(response);
  }
}
