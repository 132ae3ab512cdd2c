import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

type Json = Record<string, any>;

export interface DocumentedExample {
  where: string;
  schema: Json;
  value: unknown;
}

const SAMPLE_TIME = '2026-11-22T10:15:30.123Z';
const SAMPLE_UUID = '0b6f8f0e-8f5e-4d4a-9a57-3f1c2d4e5a6b';

/** OpenAPI 3.0 schema to JSON Schema: `nullable` becomes a null type, `example` (not JSON Schema) goes. */
function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'example' || key === 'nullable') continue;
    if (key === '$ref' && typeof value === 'string')
      out.$ref = value.replace('#/components/schemas/', 'openapi#/$defs/');
    else if (key === 'properties') {
      out.properties = Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, toJsonSchema(v)]));
    } else out[key] = toJsonSchema(value);
  }
  const source = node as Json;
  if (source.nullable === true) {
    if (source.$ref) return { anyOf: [{ $ref: out.$ref }, { type: 'null' }] };
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
  }
  return out;
}

/** Validates values against the document's schemas, formats included (Ajv with ajv-formats). */
export class SchemaValidator {
  private readonly ajv = new Ajv({ strict: true, strictTypes: false, allErrors: true });
  private readonly cache = new Map<Json, ValidateFunction>();

  constructor(private readonly document: Json) {
    addFormats(this.ajv);
    // Not JSON Schema vocabulary, but legal in an OpenAPI schema.
    this.ajv.addKeyword('xml').addKeyword('discriminator').addKeyword('externalDocs');
    this.ajv.addSchema({ $id: 'openapi', $defs: toJsonSchema(document.components?.schemas ?? {}) });
  }

  errors(schema: Json, value: unknown): string[] {
    let validate = this.cache.get(schema);
    if (!validate) {
      validate = this.ajv.compile(toJsonSchema(schema) as Json);
      this.cache.set(schema, validate);
    }
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
  }

  resolve(schema: Json): Json {
    if (typeof schema.$ref !== 'string') return schema;
    const name = schema.$ref.replace('#/components/schemas/', '');
    return this.resolve(this.document.components.schemas[name]);
  }

  /** The example a reader sees when none is written out: built from the properties' examples, as Swagger UI does. */
  sample(schema: Json): unknown {
    const resolved = this.resolve(schema);
    if (resolved.example !== undefined) return resolved.example;
    if (resolved.enum) return resolved.enum[0];
    if (resolved.default !== undefined) return resolved.default;
    if (resolved.type === 'object' || resolved.properties) {
      return Object.fromEntries(
        Object.entries((resolved.properties ?? {}) as Record<string, Json>).map(([key, property]) => [
          key,
          this.sample(property),
        ]),
      );
    }
    if (resolved.type === 'array') return [this.sample(resolved.items)];
    if (resolved.type === 'string') {
      const byFormat: Record<string, string> = {
        'date-time': SAMPLE_TIME,
        uuid: SAMPLE_UUID,
        uri: 'https://example.com/x',
      };
      return byFormat[resolved.format as string] ?? 'string';
    }
    return { number: 0, integer: 0, boolean: true }[resolved.type as string];
  }
}

/** Every example written in the document: in schemas, parameters, bodies, answers and headers. */
export function documentedExamples(document: Json): DocumentedExample[] {
  const found: DocumentedExample[] = [];
  const inSchema = (schema: Json | undefined, where: string) => {
    if (!schema || typeof schema !== 'object') return;
    if (schema.example !== undefined) found.push({ where, schema, value: schema.example });
    for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
      inSchema(property, `${where}.${name}`);
    }
    if (schema.items) inSchema(schema.items, `${where}[]`);
    if (typeof schema.additionalProperties === 'object') inSchema(schema.additionalProperties, `${where}{}`);
  };
  const inMedia = (holder: Json, schema: Json | undefined, where: string) => {
    inSchema(schema, `${where} schema`);
    if (!schema) return;
    if (holder.example !== undefined) found.push({ where, schema, value: holder.example });
    for (const [name, example] of Object.entries((holder.examples ?? {}) as Record<string, Json>)) {
      found.push({ where: `${where} example ${name}`, schema, value: example.value });
    }
  };
  for (const [name, schema] of Object.entries((document.components?.schemas ?? {}) as Record<string, Json>)) {
    inSchema(schema, name);
  }
  for (const [where, operation] of operationsOf(document)) {
    for (const parameter of (operation.parameters ?? []) as Json[]) {
      inMedia(parameter, parameter.schema, `${where} ${parameter.in} ${parameter.name}`);
    }
    for (const [type, media] of Object.entries((operation.requestBody?.content ?? {}) as Record<string, Json>)) {
      inMedia(media, media.schema, `${where} body ${type}`);
    }
    for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, Json>)) {
      for (const [type, media] of Object.entries((response.content ?? {}) as Record<string, Json>)) {
        inMedia(media, media.schema, `${where} ${status} ${type}`);
      }
      for (const [name, header] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
        inMedia(header, header.schema, `${where} ${status} header ${name}`);
      }
    }
  }
  return found;
}

/** [`METHOD /path`, operation] for every operation of the document. */
export function operationsOf(document: Json): [string, Json][] {
  const operations: [string, Json][] = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
      if (item[method]) operations.push([`${method.toUpperCase()} ${path}`, item[method]]);
    }
  }
  return operations;
}
