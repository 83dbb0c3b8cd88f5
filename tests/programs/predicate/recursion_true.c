/* A recursive walk that neither touches the lock state nor reaches the
   error label: cutting its recursive call keeps the proof.
   expect: cegar=true */
int locked = 0;
int sum = 0;
void lock(void) { if (locked) { ERROR: ; } locked = 1; }
void unlock(void) { locked = 0; }
int walk(int n) { if (n > 0) { sum = sum + n; return walk(n - 1); } return sum; }
int main(void) { lock(); walk(5); unlock(); lock(); unlock(); return 0; }
