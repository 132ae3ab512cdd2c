import { JsonNumberText, parseJsonPreservingNumbers } from './json-body';

/** The reference: every number through the reviver, whatever the text. */
function parsedWithReviver(text: string): unknown {
  return JSON.parse(text, (_key, value, context) =>
    typeof value === 'number' ? new JsonNumberText(context.source ?? String(value)) : value,
  );
}

describe('parseJsonPreservingNumbers', () => {
  it.each([
    '{"senderUpiId":"a@okbank","receiverUpiId":"b@okbank","amount":"12.34","note":"x"}',
    '{"amount":1234567890123.4567}',
    '{"amount":\n\t -0.5e2}',
    '{"a":[1, [2,{"b":3}]],"c":null,"d":true}',
    '[ 1 ]',
    '7',
    ' -1 ',
    '{"note":"1:2, [3"}',
    '{"note":"no numbers","tags":["x","y"],"nested":{"flag":false}}',
    '"just a string"',
    '{}',
  ])('gives what the reviver gives for %s', (text) => {
    expect(parseJsonPreservingNumbers(text)).toStrictEqual(parsedWithReviver(text));
  });

  it('keeps the source text of every number', () => {
    const parsed = parseJsonPreservingNumbers('{"amount": 1234567890123.4567, "list": [1.10]}') as {
      amount: JsonNumberText;
      list: JsonNumberText[];
    };
    expect(parsed.amount).toBeInstanceOf(JsonNumberText);
    expect([parsed.amount.source, parsed.list[0].source]).toEqual(['1234567890123.4567', '1.10']);
  });

  it('still refuses text that is not JSON', () => {
    expect(() => parseJsonPreservingNumbers('{"a": tru')).toThrow(SyntaxError);
    expect(() => parseJsonPreservingNumbers('{"a": 01}')).toThrow(SyntaxError);
  });
});
