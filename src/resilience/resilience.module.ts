import { Global, Module } from '@nestjs/common';
import { CircuitBreakers, circuitMetricProviders } from './circuit-breakers';

@Global()
@Module({
  providers: [...circuitMetricProviders, CircuitBreakers],
  exports: [CircuitBreakers],
})
export class ResilienceModule {}
