import { InvalidArgumentError } from 'commander';

/** commander argument parsers: a bad value is a usage error (exit 2) before anything runs. */
export function integerIn(min: number, max: number) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      throw new InvalidArgumentError(`must be an integer from ${min} to ${max}.`);
    }
    return Number(value);
  };
}
