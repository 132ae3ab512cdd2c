import { isIP } from 'node:net';
import { Controller, Get, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Public } from '../access/access.decorators';
import { AppConfig } from '../config/app-config';

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
  constructor(private readonly config: AppConfig) {}

  @Get()
  @ApiOperation({ summary: 'Links to every actuator endpoint (Spring Boot Actuator shape)' })
  index(@Req() request: FastifyRequest): { _links: Record<string, Link> } {
    const base = `${this.config.publicBaseUrl ?? listeningOrigin(request)}/actuator`;
    const links: Record<string, Link> = {};
    for (const [name, path] of Object.entries(ENDPOINTS)) {
      links[name] = { href: `${base}${path}`, templated: path.includes('{') };
    }
    return { _links: links };
  }
}

/**
 * The address and port this connection reached, from the socket: Host and X-Forwarded-Host are
 * written by the client, so a link built from them could point anywhere (PUBLIC_BASE_URL names
 * the public address behind a proxy).
 */
function listeningOrigin(request: FastifyRequest): string {
  const { localAddress = '127.0.0.1', localPort } = request.raw.socket;
  const address = localAddress.replace(/^::ffff:(?=\d+\.)/, '');
  return `http://${isIP(address) === 6 ? `[${address}]` : address}:${localPort}`;
}
