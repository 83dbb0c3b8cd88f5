/* A loop in CIL's form (`while (1)` left by a `goto`) over an unsigned
 * counter next to a signed one: the predicate analysis proves the bound,
 * its predicates read the unsigned counter as unsigned.
 * prp: unreach-call.prp  expect: true */
extern void abort(void);
extern unsigned int __VERIFIER_nondet_uint(void);
void reach_error() { abort(); }

int main(void)
{
  unsigned int k;
  int j;
  unsigned int n = __VERIFIER_nondet_uint();
  k = 0U;
  j = 0;
  while (1) {
    while_continue: ;
    if (!(k < 5U)) {
      goto while_break;
    }
    if (n == k)
      j = j + 1;
    k = k + 1U;
  }
  while_break: ;
  if (k > 5U || j > 1)
    reach_error();
  return 0;
}
