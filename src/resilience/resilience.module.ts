// Owns no table: the named circuit breakers (upiValidation, aiCircuitBreaker) around external
// providers, and their metrics.
import { Global, Module } from '@nestjs/common';
import { CircuitBreakers, circuitMetricProviders } from './circuit-breakers';

@Global()
@Module({
  providers: [...circuitMetricProviders, CircuitBreakers],
  exports: [CircuitBreakers],
})
export class ResilienceModule {}
