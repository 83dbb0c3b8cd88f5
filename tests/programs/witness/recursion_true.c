/* A loop in a recursive function: the analysis cuts the nested call, so
 * it never sees the loop there (where `depth` is 1, not 0), and the loop
 * gets no invariant; the loop of `main`, which the recursion does not
 * reach, does.
 * prp: unreach-call.prp  expect: true */
extern void abort(void);
extern int __VERIFIER_nondet_int(void);
void reach_error() { abort(); }

int depth = 0;

void descend(int n)
{
  int k = 0;
  while (k < 2) {
    k++;
  }
  if (n > 0) {
    depth = 1;
    descend(n - 1);
  }
}

int main(void)
{
  while (__VERIFIER_nondet_int()) {
  }
  if (depth != 0)
    reach_error();
  descend(__VERIFIER_nondet_int());
  return 0;
}
