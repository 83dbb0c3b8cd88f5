/* A loop of unknown bound: the reach_error call after it needs what the
 * predicate analysis learns of the counter (no unrolling ends).
 * prp: unreach-call.prp  expect: true */
extern void abort(void);
extern int __VERIFIER_nondet_int(void);
void reach_error() { abort(); }

int main(void)
{
  int i;
  int n = __VERIFIER_nondet_int();
  for (i = 0; i < n; i++) {
  }
  if (i < 0)
    reach_error();
  return 0;
}
