/* The older SV-COMP form: the error is a call of the undefined __VERIFIER_error.
 * prp: verifier-error.prp  expect: false */
extern void __VERIFIER_error(void);
extern unsigned int __VERIFIER_nondet_uint(void);

int main(void)
{
  unsigned int n = __VERIFIER_nondet_uint();
  unsigned int s = 0;
  for (unsigned int k = 0; k < 3; k++)
    s += n;
  if (s == 3000000000U)
    __VERIFIER_error();
  return 0;
}
