// Handlebars' whitespace control (handlebars/compiler/whitespace-control.js, 4.7), ported
// line for line onto the tree of template-parser.ts, so a template renders with exactly the
// whitespace it always had: `~` strips all whitespace on its side, and a block tag, `else` or
// comment alone on its line ("standalone") takes that line's indentation and line break away.
// The patterns are Handlebars' own (anchored so none backtracks quadratically); each content
// node is tested a bounded number of times, so the pass is linear in the template.

import type { BlockNode, Program, Strip, TemplateNode } from './template-parser.ts';

interface StripCandidate {
  readonly open?: boolean | undefined;
  readonly close?: boolean | undefined;
  readonly openStandalone?: boolean;
  readonly closeStandalone?: boolean;
  readonly inlineStandalone?: boolean;
}

class WhitespaceControl {
  #rootSeen = false;

  program(program: Program): void {
    const isRoot = !this.#rootSeen;
    this.#rootSeen = true;
    const body = program.body;
    for (let i = 0; i < body.length; i++) {
      const current = body[i] as TemplateNode;
      const strip = this.#statement(current);
      if (strip === undefined) continue;

      const prevWhitespace = isPrevWhitespace(body, i, isRoot);
      const nextWhitespace = isNextWhitespace(body, i, isRoot);
      const openStandalone = strip.openStandalone === true && prevWhitespace;
      const closeStandalone = strip.closeStandalone === true && nextWhitespace;
      const inlineStandalone = strip.inlineStandalone === true && prevWhitespace && nextWhitespace;

      if (strip.close === true) omitRight(body, i, true);
      if (strip.open === true) omitLeft(body, i, true);
      if (inlineStandalone) {
        omitRight(body, i);
        omitLeft(body, i);
      }
      if (openStandalone && current.type === 'block') {
        omitRight((current.program ?? current.inverse)?.body ?? [], undefined);
        omitLeft(body, i);
      }
      if (closeStandalone && current.type === 'block') {
        omitRight(body, i);
        omitLeft((current.inverse ?? current.program)?.body ?? [], undefined);
      }
    }
  }

  #statement(node: TemplateNode): StripCandidate | undefined {
    switch (node.type) {
      case 'content':
        return undefined;
      case 'variable':
        return node.strip;
      case 'comment':
        return { inlineStandalone: true, open: node.strip.open, close: node.strip.close };
      case 'block':
        return this.#block(node);
    }
  }

  #block(block: BlockNode): StripCandidate {
    if (block.program !== undefined) this.program(block.program);
    if (block.inverse !== undefined) this.program(block.inverse);

    // The inverse program involved in stripping: the first and last of an else-if chain.
    const program = (block.program ?? block.inverse) as Program;
    const inverse = block.program !== undefined ? block.inverse : undefined;
    let firstInverse = inverse;
    let lastInverse = inverse;
    if (inverse?.chained === true) {
      firstInverse = (inverse.body[0] as BlockNode).program;
      while (lastInverse?.chained === true) lastInverse = (lastInverse.body[lastInverse.body.length - 1] as BlockNode).program;
    }

    const closeStrip = block.closeStrip as Strip;
    const strip: StripCandidate = {
      open: block.openStrip.open,
      close: closeStrip.close,
      // Standalone candidacy; the parent decides whether the block really is standalone.
      openStandalone: isNextWhitespace(program.body, undefined, false),
      closeStandalone: isPrevWhitespace((firstInverse ?? program).body, undefined, false),
    };

    if (block.openStrip.close) omitRight(program.body, undefined, true);

    if (inverse !== undefined) {
      const inverseStrip = block.inverseStrip as Strip;
      const first = firstInverse as Program;
      if (inverseStrip.open) omitLeft(program.body, undefined, true);
      if (inverseStrip.close) omitRight(first.body, undefined, true);
      if (closeStrip.open) omitLeft((lastInverse as Program).body, undefined, true);
      // A standalone else.
      if (isPrevWhitespace(program.body, undefined, false) && isNextWhitespace(first.body, undefined, false)) {
        omitLeft(program.body);
        omitRight(first.body);
      }
    } else if (closeStrip.open) {
      omitLeft(program.body, undefined, true);
    }
    return strip;
  }
}

// Handlebars leaves `undefined` (falsy) where the neighbour is not content; booleans here.
function isPrevWhitespace(body: readonly TemplateNode[], index: number | undefined, isRoot: boolean): boolean {
  const i = index ?? body.length;
  const prev = body[i - 1];
  const sibling = body[i - 2];
  if (prev === undefined) return isRoot;
  if (prev.type !== 'content') return false;
  // A newline in the trailing whitespace (or, for the root's first node, all whitespace).
  return (sibling !== undefined || !isRoot ? /(?:^|\S)[^\S\n]*\n\s*$/ : /^\s*$|(?:^|\S)[^\S\n]*\n\s*$/).test(prev.original);
}

function isNextWhitespace(body: readonly TemplateNode[], index: number | undefined, isRoot: boolean): boolean {
  const i = index ?? -1;
  const next = body[i + 1];
  const sibling = body[i + 2];
  if (next === undefined) return isRoot;
  if (next.type !== 'content') return false;
  return (sibling !== undefined || !isRoot ? /^\s*?\r?\n/ : /^\s*?(\r?\n|$)/).test(next.original);
}

/** Strips the start of the content right of `index` (the first node when undefined); `multiple`: all whitespace. */
function omitRight(body: readonly TemplateNode[], index?: number, multiple = false): void {
  const current = body[index === undefined ? 0 : index + 1];
  if (current === undefined || current.type !== 'content' || (!multiple && current.rightStripped === true)) return;
  const original = current.value;
  current.value = current.value.replace(multiple ? /^\s+/ : /^[ \t]*\r?\n?/, '');
  current.rightStripped = current.value !== original;
}

/** Strips the end of the content left of `index` (the last node when undefined); `multiple`: all whitespace. */
function omitLeft(body: readonly TemplateNode[], index?: number, multiple = false): boolean {
  const current = body[index === undefined ? body.length - 1 : index - 1];
  if (current === undefined || current.type !== 'content' || (!multiple && current.leftStripped === true)) return false;
  const original = current.value;
  current.value = current.value.replace(multiple ? /(^|\S)\s+$/ : /(^|[^ \t])[ \t]+$/, '$1');
  current.leftStripped = current.value !== original;
  return current.leftStripped;
}

/** Applies the whitespace rules to a freshly parsed tree, in place. */
export function controlWhitespace(root: Program): Program {
  new WhitespaceControl().program(root);
  return root;
}
