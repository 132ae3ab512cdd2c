import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { register } from 'prom-client';
import { Public } from '../access/access.decorators';
import { ApiError, invalidRequest } from '../common/errors/api-error';
import { ErrorCode } from '../common/errors/error-code';
import { ApiProblems } from '../docs/api-docs';
import { type MetricView, parseTagFilter, toMetricView } from '../metrics/metric-view';

/** Spring Boot Actuator's metric endpoints, over the same registry /actuator/prometheus scrapes. */
@ApiTags('Operations')
@Public()
@Controller('actuator/metrics')
export class MetricsController {
  @Get()
  @ApiOperation({ summary: 'The names of every metric /actuator/prometheus exposes' })
  async names(): Promise<{ names: string[] }> {
    const metrics = await register.getMetricsAsJSON();
    return { names: metrics.map((metric) => metric.name).sort() };
  }

  @Get(':name')
  @ApiOperation({ summary: 'One metric: its measurements summed over the series matching every ?tag=key:value' })
  @ApiParam({ name: 'name', example: 'http_server_requests_seconds' })
  @ApiQuery({ name: 'tag', required: false, example: 'status:200', description: 'key:value, repeatable' })
  @ApiOkResponse({ description: 'The metric, summed over the matching series' })
  @ApiProblems(400, 404)
  async metric(@Param('name') name: string, @Query('tag') tag?: string | string[]): Promise<MetricView> {
    const filter = parseTagFilter(tag);
    if (filter === null) throw invalidRequest('Each tag must be written key:value');
    // Found by name among the registered metrics, never by indexing an object with user input
    // (getSingleMetric does, so "__proto__" or "constructor" reached the prototype: a 500).
    const known = register.getMetricsAsArray().some((candidate) => candidate.name === name);
    const metric = known ? register.getSingleMetric(name) : undefined;
    if (!metric) throw new ApiError(ErrorCode.NotFound, `No metric named ${name}`);
    const view = toMetricView(await metric.get(), filter);
    if (!view) throw new ApiError(ErrorCode.NotFound, `No series of ${name} matches the given tags`);
    return view;
  }
}
