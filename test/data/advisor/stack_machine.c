/* A small stack-machine interpreter: tiny push/pop helpers called from many
 * sites. -Oz inlines them all, which more than doubles the module's size;
 * LLVM's ML inline advisor stops inlining at twice the start unless
 * -ml-advisor-size-increase-threshold says otherwise (test of that setting). */
static int stack[256];
static int sp;
static void push(int value) { stack[sp++] = value; }
static int pop(void) { return stack[--sp]; }
static int top(void) { return stack[sp - 1]; }

int run(const unsigned char *code, int length) {
  sp = 0;
  for (int pc = 0; pc < length; pc++) {
    int a, b;
    switch (code[pc]) {
      case 0: push(code[++pc]); break;
      case 1: b = pop(); a = pop(); push(a + b); break;
      case 2: b = pop(); a = pop(); push(a - b); break;
      case 3: b = pop(); a = pop(); push(a * b); break;
      case 4: b = pop(); a = pop(); push(b ? a / b : 0); break;
      case 5: b = pop(); a = pop(); push(b ? a % b : 0); break;
      case 6: a = top(); push(a); break;
      case 7: b = pop(); a = pop(); push(b); push(a); break;
      case 8: pop(); break;
      case 9: b = pop(); a = pop(); push(a < b); break;
      case 10: b = pop(); a = pop(); push(a == b); break;
      case 11: b = pop(); a = pop(); push(a & b); break;
      case 12: b = pop(); a = pop(); push(a | b); break;
      case 13: b = pop(); a = pop(); push(a ^ b); break;
      case 14: b = pop(); a = pop(); push(a << (b & 31)); break;
      case 15: b = pop(); a = pop(); push(a >> (b & 31)); break;
      case 16: a = pop(); push(-a); break;
      case 17: a = pop(); push(!a); break;
      case 18: a = pop(); if (!a) pc += code[pc + 1]; pc++; break;
      case 19: pc -= code[pc + 1] + 1; break;
      case 20: b = pop(); a = pop(); push(a > b ? a : b); break;
      case 21: b = pop(); a = pop(); push(a < b ? a : b); break;
      default: return -1;
    }
  }
  return sp > 0 ? pop() : 0;
}
