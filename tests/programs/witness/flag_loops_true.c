/* A flag every iteration sets and clears again, in a `while` loop of a
 * function and in a loop made of a label and a `goto`: the explicit
 * values prove it; at the loops the flag is 0, and the caller's local
 * (known, but not in scope in the callee) is left out.
 * prp: unreach-call.prp  expect: true */
extern void abort(void);
extern int __VERIFIER_nondet_int(void);
void reach_error() { abort(); }

int busy = 0;
unsigned int rounds = 3U;

void step(void)
{
  if (busy || rounds != 3U)
    reach_error();
  busy = 1;
  busy = 0;
}

void work(void)
{
  while (__VERIFIER_nondet_int()) {
    step();
  }
}

int main(void)
{
  int mode = 7;
  work();
again:
  step();
  if (__VERIFIER_nondet_int())
    goto again;
  return mode - 7;
}
