/* Two bodies of one function: an error, as a compiler says. */
int main(void)
{
ERROR:
  return 1;
}
int main(void)
{
  return 0;
}
