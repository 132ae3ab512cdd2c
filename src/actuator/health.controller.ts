import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../access/access.decorators';
import { type AuthenticatedUser, ROLE_ADMIN } from '../access/authenticated-user';
import { HealthService } from './health.service';

/** Kubernetes probes and the health summary; details only for an admin's bearer token. */
@ApiTags('Operations')
@Public()
@Controller('actuator/health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get()
  @ApiOperation({ summary: 'Overall health; component details for ROLE_ADMIN tokens only' })
  async overall(@Req() request: FastifyRequest & { user?: AuthenticatedUser }, @Res() reply: FastifyReply) {
    const report = await this.health.report();
    const isAdmin = request.user?.roles.includes(ROLE_ADMIN) ?? false;
    send(reply, report.status, isAdmin ? report : { status: report.status });
  }

  @Get('liveness')
  @ApiOperation({ summary: 'Liveness probe: the process is up and serving HTTP' })
  liveness(@Res() reply: FastifyReply) {
    send(reply, 'UP', { status: 'UP' });
  }

  @Get('readiness')
  @ApiOperation({ summary: 'Readiness probe: the database answers and no essential circuit is open' })
  async readiness(@Res() reply: FastifyReply) {
    const report = await this.health.report();
    send(reply, report.status, report);
  }
}

function send(reply: FastifyReply, status: 'UP' | 'DOWN', body: unknown): void {
  void reply
    .status(status === 'UP' ? 200 : 503)
    .header('cache-control', 'no-store')
    .type('application/json')
    .send(body);
}
