typedef unsigned __int128 u128;
int main(void)
{
  u128 x = 1;
  return (int)x;
}
