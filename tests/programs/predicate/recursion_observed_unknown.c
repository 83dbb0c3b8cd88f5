/* The recursive call takes and releases the lock, so it could reach the
   error label itself: cutting it is not an over-approximation, and the
   (safe) program is not proved.
   expect: cegar=unknown */
int locked = 0;
void lock(void) { if (locked) { ERROR: ; } locked = 1; }
void unlock(void) { locked = 0; }
int walk(int n) { lock(); unlock(); if (n > 0) return walk(n - 1); return 0; }
int main(void) { walk(3); return 0; }
