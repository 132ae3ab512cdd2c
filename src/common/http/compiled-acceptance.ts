import {
  getMetadataStorage,
  type ValidationArguments,
  type ValidatorConstraintInterface,
  type ValidatorOptions,
  ValidationTypes,
} from 'class-validator';

type MetadataStorage = ReturnType<typeof getMetadataStorage>;
/** A class whose instances the pipe validates. */
export type RequestClass = abstract new (...args: never[]) => unknown;
type ValidationMetadata = ReturnType<MetadataStorage['getTargetValidationMetadatas']>[number];

/**
 * Whether an instance passes every class-validator rule of its class, as class-validator decides
 * it under the pipe's options (`whitelist`, nothing skipped), answered by class-validator's own
 * constraint functions but without its executor.
 *
 * Why: the executor builds an error object for every property of every body, valid or not, and
 * filters its metadata again on every call: about a fifth of what a transfer request allocated
 * (docs/decisions/0015-less-work-per-request.md). The rules of a class are read once
 * here; a body that passes them all is accepted as is. Anything else (a failed or asynchronous
 * check, a class with nested or per-item rules) returns false and goes through class-validator,
 * which words the error: this can only accept what class-validator accepts.
 */
export type Acceptance = (object: Record<string, unknown>) => boolean;

interface Check {
  readonly constraint: ValidatorConstraintInterface;
  readonly metadata: ValidationMetadata;
}

interface PropertyRules {
  readonly conditions: ((object: object, value: unknown) => boolean)[];
  readonly checks: Check[];
}

const compiled = new Map<RequestClass, Acceptance | null>();

/** The options this acceptance decides as class-validator does: unlisted properties dropped, none skipped. */
export function compilable(options: ValidatorOptions | undefined): boolean {
  if (!options?.whitelist || options.forbidNonWhitelisted || options.groups?.length) return false;
  return !options.always && !options.strictGroups && !options.stopAtFirstError && !skipsAny(options);
}

function skipsAny(options: ValidatorOptions): boolean {
  return !!(options.skipMissingProperties || options.skipNullProperties || options.skipUndefinedProperties);
}

/** The acceptance of a class, compiled on first use; undefined when class-validator must decide. */
export function acceptanceOf(target: RequestClass): Acceptance | undefined {
  let acceptance = compiled.get(target);
  if (acceptance === undefined) {
    acceptance = compile(target) ?? null;
    compiled.set(target, acceptance);
  }
  return acceptance ?? undefined;
}

function compile(target: RequestClass): Acceptance | undefined {
  const storage = getMetadataStorage();
  // The same selection the executor makes: no groups, not "always", no schema.
  const metadatas = storage.getTargetValidationMetadatas(target, undefined as unknown as string, false, false);
  // No rules at all is an error of its own under forbidUnknownValues: class-validator's to word.
  if (metadatas.length === 0) return undefined;
  const rules = new Map<string, PropertyRules>();
  for (const metadata of metadatas) {
    const property = rules.get(metadata.propertyName) ?? { conditions: [], checks: [] };
    rules.set(metadata.propertyName, property);
    if (!addRule(property, metadata, storage)) return undefined;
  }
  return (object) => accepts(object, target.name, rules);
}

/** False for a rule only class-validator's executor handles. */
function addRule(property: PropertyRules, metadata: ValidationMetadata, storage: MetadataStorage): boolean {
  switch (metadata.type) {
    case ValidationTypes.WHITELIST:
      return true;
    case ValidationTypes.CONDITIONAL_VALIDATION:
      property.conditions.push(metadata.constraints[0] as PropertyRules['conditions'][number]);
      return true;
    case ValidationTypes.CUSTOM_VALIDATION:
    case ValidationTypes.IS_DEFINED:
      if (metadata.each) return false;
      for (const constraint of storage.getTargetValidatorConstraints(metadata.constraintCls)) {
        property.checks.push({ constraint: constraint.instance, metadata });
      }
      return true;
    default:
      return false;
  }
}

function accepts(object: Record<string, unknown>, targetName: string, rules: Map<string, PropertyRules>): boolean {
  // whitelist: a property without rules is dropped, as class-validator drops it.
  for (const key of Object.keys(object)) if (!rules.has(key)) delete object[key];
  for (const [property, { conditions, checks }] of rules) {
    const value = object[property];
    if (!conditions.every((condition) => condition(object, value))) continue;
    for (const { constraint, metadata } of checks) {
      if (metadata.validateIf && !metadata.validateIf(object, value)) continue;
      const args: ValidationArguments = { targetName, property, object, value, constraints: metadata.constraints };
      const valid: unknown = constraint.validate(value, args);
      if (!valid || typeof (valid as PromiseLike<unknown>).then === 'function') return false;
    }
  }
  return true;
}
