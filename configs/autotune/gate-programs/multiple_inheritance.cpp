// Multiple and virtual inheritance: this-pointer adjustment when converting
// to the second base, virtual calls through each base (thunks), a diamond
// with a virtual base shared once, cross-casts with dynamic_cast, member
// layout through each base view, and destruction through either base.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

static int failures;
#define CHECK(c)                                                                       \
  do {                                                                                 \
    if (!(c)) {                                                                        \
      std::fprintf(stderr, "multiple_inheritance: line %d: %s\n", __LINE__, #c);       \
      failures++;                                                                      \
    }                                                                                  \
  } while (0)

static std::string log_;

struct Readable {
  int read_count = 0;
  virtual ~Readable() { log_ += "~R"; }
  virtual int read() { return ++read_count; }
  virtual const char *who() const { return "readable"; }
};
struct Writable {
  int written = 0;
  virtual ~Writable() { log_ += "~W"; }
  virtual void write(int v) { written += v; }
  virtual int capacity() const { return 10; }
};
struct File : Readable, Writable {
  int fd;
  explicit File(int f) : fd(f) {}
  ~File() override { log_ += "~F"; }
  int read() override { return Readable::read() * 100 + fd; }
  void write(int v) override { Writable::write(2 * v); }
  int capacity() const override { return 1000 + fd; }
  const char *who() const override { return "file"; }
};

// Diamond with a virtual base: one shared Device subobject.
struct Device {
  int id;
  static int constructions;
  explicit Device(int i) : id(i) { constructions++; }
  virtual ~Device() = default;
  virtual int power() const { return 1; }
};
int Device::constructions = 0;
struct Scanner : virtual Device {
  Scanner() : Device(-1) {} // ignored when Scanner is a base of MultiFunction
  int scan_dpi = 300;
  int power() const override { return 5; }
  int scanner_id() const { return id; }
};
struct Printer : virtual Device {
  Printer() : Device(-2) {}
  int ppm = 20;
  int printer_id() const { return id; }
  virtual int pages(int minutes) const { return ppm * minutes; }
};
struct MultiFunction : Scanner, Printer {
  MultiFunction() : Device(77) {} // the most derived class initializes the virtual base
  int power() const override { return Scanner::power() + 7; }
  int pages(int minutes) const override { return Printer::pages(minutes) / 2; }
};

// Non-virtual diamond: two distinct copies of the base.
struct Counter { int n = 0; void bump() { n++; } };
struct Left : Counter {};
struct Right : Counter {};
struct Both : Left, Right {};

static int use_writable(Writable &w, int v) { w.write(v); return w.capacity(); }
static int use_readable(Readable *r) { return r->read(); }

int main() {
  File f(7);
  Readable *r = &f;
  Writable *w = &f;
  auto addr = [](const void *p) { return reinterpret_cast<std::uintptr_t>(p); };
  CHECK(addr(r) == addr(&f));             // first base at offset 0
  CHECK(addr(w) != addr(&f));             // second base is adjusted
  CHECK(static_cast<File *>(w) == &f);    // and adjusted back
  CHECK(use_readable(&f) == 107 && use_readable(r) == 207);
  CHECK(use_writable(f, 5) == 1007 && w->written == 10 && f.written == 10);
  w->write(1);
  CHECK(f.Writable::written == 12);
  CHECK(dynamic_cast<Writable *>(r) == w);   // cross-cast between the two bases
  CHECK(dynamic_cast<File *>(w) == &f && std::string(dynamic_cast<Readable *>(w)->who()) == "file");
  Readable plain;
  Readable *volatile opaque_plain = &plain; // hide the dynamic type from the compiler
  CHECK(dynamic_cast<Writable *>(opaque_plain) == nullptr && plain.read() == 1);

  Writable *wp = new File(3);
  log_.clear();
  delete wp; // through the second base: the complete object is destroyed
  CHECK(log_ == "~F~W~R");

  Device::constructions = 0;
  MultiFunction mf;
  CHECK(Device::constructions == 1 && mf.id == 77 && mf.scanner_id() == 77 && mf.printer_id() == 77);
  Scanner &s = mf;
  Printer &p = mf;
  Device &d = mf;
  CHECK(&static_cast<Device &>(s) == &d && &static_cast<Device &>(p) == &d); // one shared base
  d.id = 5;
  CHECK(s.scanner_id() == 5 && p.printer_id() == 5);
  CHECK(d.power() == 12 && s.power() == 12 && p.power() == 12);
  CHECK(p.pages(6) == 60);
  CHECK(dynamic_cast<Printer *>(&s) == &p && dynamic_cast<MultiFunction *>(&d) == &mf);
  Scanner alone;
  Scanner *volatile opaque_alone = &alone;
  CHECK(alone.id == -1 && alone.power() == 5 && dynamic_cast<Printer *>(opaque_alone) == nullptr);
  std::unique_ptr<Device> owner(new MultiFunction());
  CHECK(owner->id == 77 && owner->power() == 12);

  Both b;
  b.Left::bump();
  b.Left::bump();
  b.Right::bump();
  Left &l = b;
  Right &rr = b;
  CHECK(l.n == 2 && rr.n == 1 && static_cast<Counter &>(l).n != static_cast<Counter &>(rr).n);
  CHECK(&static_cast<Counter &>(l) != &static_cast<Counter &>(rr));

  log_.clear();
  if (failures) {
    std::fprintf(stderr, "multiple_inheritance: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
