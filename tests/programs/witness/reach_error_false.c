/* SV-COMP style: the error is a call of reach_error, inputs come from
 * __VERIFIER_nondet_int; negated and short-circuit conditions on the path.
 * prp: unreach-call.prp  expect: false */
extern void abort(void);
extern int __VERIFIER_nondet_int(void);
void reach_error() { abort(); }

static int check(int a, int b)
{
  if (!(a > 10) || b == 3)
    return 0;
  return a + b;
}

int main(void)
{
  int x = __VERIFIER_nondet_int();
  int y = __VERIFIER_nondet_int();
  int i = 0;
  while (i < 2) {
    i++;
  }
  if (check(x, y) == 20 && y < 0) {
    reach_error();
  }
  return 0;
}
