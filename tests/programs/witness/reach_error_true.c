/* The call of reach_error is behind a contradiction.
 * prp: unreach-call.prp  expect: true */
extern void abort(void);
extern int __VERIFIER_nondet_int(void);
void reach_error() { abort(); }

int main(void)
{
  int x = __VERIFIER_nondet_int();
  if (x > 5 && x < 3)
    reach_error();
  return 0;
}
