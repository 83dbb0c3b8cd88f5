int main(void)
{
  return 0;
}

this is not C at all
