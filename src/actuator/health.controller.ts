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
  async overall(@Req() request: Caller, @Res() reply: FastifyReply) {
    await this.sendReport(request, reply);
  }

  @Get('liveness')
  @ApiOperation({
    summary: 'Liveness probe: the process can serve; DOWN only when its embedded database cannot be restarted',
  })
  liveness(@Res() reply: FastifyReply) {
    const status = this.health.liveness();
    send(reply, status, { status });
  }

  @Get('readiness')
  @ApiOperation({
    summary: 'Readiness probe: the database answers and no essential circuit is open; details for ROLE_ADMIN only',
  })
  async readiness(@Req() request: Caller, @Res() reply: FastifyReply) {
    await this.sendReport(request, reply);
  }

  /** Components and error texts describe the infrastructure: only admins see them. */
  private async sendReport(request: Caller, reply: FastifyReply): Promise<void> {
    const report = await this.health.report();
    const isAdmin = request.user?.roles.includes(ROLE_ADMIN) ?? false;
    send(reply, report.status, isAdmin ? report : { status: report.status });
  }
}

type Caller = FastifyRequest & { user?: AuthenticatedUser };

function send(reply: FastifyReply, status: 'UP' | 'DOWN', body: unknown): void {
  void reply
    .status(status === 'UP' ? 200 : 503)
    .header('cache-control', 'no-store')
    .type('application/json')
    .send(body);
}
