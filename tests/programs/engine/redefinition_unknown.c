/* Two bodies of one function: an error, as a compiler says.
 * expect: symexec=error cegar=error */
int main(void)
{
ERROR:
  return 1;
}
int main(void)
{
  return 0;
}
