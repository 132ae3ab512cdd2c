import type { HttpDriver } from './http-driver';

/** The service's Prometheus text, or undefined when it cannot be read. */
export async function scrapeServiceMetrics(http: HttpDriver): Promise<string | undefined> {
  try {
    const { status, body } = await http.send('GET', '/actuator/prometheus');
    return status === 200 ? body : undefined;
  } catch {
    return undefined;
  }
}
