import { Controller, Get, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Public } from '../access/access.decorators';

interface Link {
  href: string;
  templated: boolean;
}

/** Relative to /actuator; `{...}` marks a templated link, as in Spring Boot. */
const ENDPOINTS: Record<string, string> = {
  self: '',
  health: '/health',
  'health-path': '/health/{*path}',
  info: '/info',
  prometheus: '/prometheus',
  metrics: '/metrics',
  'metrics-requiredMetricName': '/metrics/{requiredMetricName}',
};

/** The discovery page of Spring Boot Actuator: a HAL `_links` map of every operations endpoint. */
@ApiTags('Operations')
@Public()
@Controller('actuator')
export class ActuatorIndexController {
  @Get()
  @ApiOperation({ summary: 'Links to every actuator endpoint (Spring Boot Actuator shape)' })
  index(@Req() request: FastifyRequest): { _links: Record<string, Link> } {
    const base = `${request.protocol}://${request.host}/actuator`;
    const links: Record<string, Link> = {};
    for (const [name, path] of Object.entries(ENDPOINTS)) {
      links[name] = { href: `${base}${path}`, templated: path.includes('{') };
    }
    return { _links: links };
  }
}
