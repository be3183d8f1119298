import { describe, expect, it } from 'vitest';
import {
  ClaimStream,
  checkAnswer,
  splitClaims,
  type ClaimPassage,
} from '../../../shared/search/claim-check';

const visa: ClaimPassage[] = [
  {
    title: 'Visa rules summary',
    text: 'fee is €90 for standard processing, €45 for children aged 6–12',
  },
  { title: 'Lisbon trip', text: 'Flights booked for 2027-04-12. Stay near Alfama.' },
  { title: 'Journal', text: 'Met Ana for coffee; she recommended three places in Lisbon.' },
];

describe('splitClaims', () => {
  it('cuts sentences with their markers and gives the text back whole', () => {
    const text = 'The fee is €90 [1]. Children pay €45. [1]\n\n- Flights on 2027-04-12 [2]\nDone';
    const segments = splitClaims(text);
    expect(segments.map((s) => s.raw).join('')).toBe(text);
    expect(segments.filter((s) => s.factual).map((s) => [s.body, s.citations])).toEqual([
      ['The fee is €90.', [1]],
      ['Children pay €45.', [1]],
      ['Flights on 2027-04-12', [2]],
      ['Done', []],
    ]);
  });

  it('keeps "e.g. the" and decimals inside one sentence; headings and lead-ins state nothing', () => {
    const segments = splitClaims(
      '## Answer\nHere is what your notes say:\nIt costs 3.5 e.g. the fee [1].',
    );
    expect(segments.filter((s) => s.factual).map((s) => s.body)).toEqual([
      'It costs 3.5 e.g. the fee.',
    ]);
  });
});

describe('checkAnswer', () => {
  it('supports faithful paraphrases and flags a wrong amount with the reason', async () => {
    const checked = await checkAnswer(
      'Standard processing costs €90 [1]. Children are charged €50 [1].',
      visa,
      'mark',
      { question: 'How much is the visa fee?' },
    );
    expect(checked.claims.map((c) => c.supported)).toEqual([true, false]);
    expect(checked.claims[1]?.why).toBe('“50” is not in passage 1');
    expect(checked.text).toBe(
      'Standard processing costs €90 [1]. Children are charged €50 [1]. ⚠ _(unsupported: “50” is not in passage 1)_',
    );
  });

  it('flags a wrong date and a wrong name', async () => {
    const checked = await checkAnswer(
      'The flights are on 2027-04-15 [2]. Maria recommended three places in Lisbon [3].',
      visa,
      'mark',
    );
    expect(checked.claims.map((c) => [c.supported, c.why])).toEqual([
      [false, 'the date “2027-04-15” is not in passage 2'],
      [false, '“Maria” does not appear in passage 3'],
    ]);
  });

  it('agrees dates written differently: 12 April 2027 is 2027-04-12', async () => {
    const checked = await checkAnswer('You fly on 12 April 2027 [2].', visa, 'mark');
    expect(checked.claims[0]?.supported).toBe(true);
    const wrong = await checkAnswer('You fly on 12 May 2027 [2].', visa, 'mark');
    expect(wrong.claims[0]?.supported).toBe(false);
  });

  it('removes unsupported claims when asked, and says so', async () => {
    const checked = await checkAnswer(
      'Standard processing costs €90 [1]. Children are charged €50 [1].',
      visa,
      'remove',
    );
    expect(checked.text).toBe(
      'Standard processing costs €90 [1].\n\n_(Removed one statement the cited notes do not support: “Children are charged €50.”: “50” is not in passage 1.)_',
    );
  });

  it('cites the supporting passage of a claim without markers, and flags one none supports', async () => {
    const checked = await checkAnswer(
      'Ana recommended three places in Lisbon. The fee is €120.',
      visa,
      'mark',
    );
    expect(checked.claims.map((c) => [c.citations, c.supported])).toEqual([
      [[3], true],
      [[], false],
    ]);
    expect(checked.text).toMatch(
      /^Ana recommended three places in Lisbon\. \[3\] The fee is €120\. ⚠/,
    );
  });

  it('flags a claim whose words are mostly not in its passage', async () => {
    const checked = await checkAnswer(
      'Alfama hotels require a deposit before arrival [2].',
      visa,
      'mark',
    );
    expect(checked.claims[0]?.supported).toBe(false);
    expect(checked.claims[0]?.why).toMatch(/^only \d+% of its words are in passage 2/);
  });

  it('lets an embedding similarity support a paraphrase with few shared words', async () => {
    const passages = [{ text: 'The basil wants water every other day in summer.' }];
    const text = 'During warm months, irrigate the basil on alternating days [1].';
    const without = await checkAnswer(text, passages, 'mark');
    expect(without.claims[0]?.supported).toBe(false);
    const asked: string[] = [];
    const withModel = await checkAnswer(text, passages, 'mark', {
      similarity: {
        similarities: (claim, texts) => {
          asked.push(claim);
          return Promise.resolve(texts.map(() => 0.86));
        },
      },
    });
    expect(asked).toHaveLength(1);
    expect(withModel.claims[0]?.supported).toBe(true);
    expect(withModel.claims[0]?.why).toMatch(/similarity 0\.86/);
  });
});

describe('ClaimStream', () => {
  it('releases each sentence checked once it is complete, whatever the chunking', async () => {
    const text =
      'Standard processing costs €90 [1]. Children are charged €50 [1]. Ana suggested three places [3].';
    const stream = new ClaimStream(visa, 'mark');
    let out = '';
    const released: string[] = [];
    for (const piece of text.match(/.{1,7}/gs) ?? []) {
      const shown = await stream.push(piece);
      if (shown !== '') released.push(shown);
      out += shown;
    }
    out += await stream.end();
    const whole = await checkAnswer(text, visa, 'mark');
    expect(out).toBe(whole.text);
    expect(released.length).toBeGreaterThan(1);
    expect(stream.claims.map((c) => c.supported)).toEqual([true, false, true]);
  });
});
