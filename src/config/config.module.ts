// Owns no table: the one validated AppConfig (src/config/app-config.ts), injectable everywhere.
// Settings are read once at boot; nothing changes them while the service runs.
import { Global, Module, type DynamicModule } from '@nestjs/common';
import { AppConfig } from './app-config';

/** Makes the one AppConfig instance injectable everywhere. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig): DynamicModule {
    return { module: ConfigModule, providers: [{ provide: AppConfig, useValue: config }], exports: [AppConfig] };
  }
}
