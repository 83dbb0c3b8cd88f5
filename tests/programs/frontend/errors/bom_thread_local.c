static __thread int counter;
_Thread_local int other;
int main(void)
{
  counter++;
  other = counter;
  return other;
}
