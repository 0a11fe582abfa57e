// Pinocchio's own in-process cost of forward dynamics (ABA), of the mass matrix alone (CRBA),
// of the bias alone (RNEA at zero acceleration) and of the derivatives of forward dynamics
// (computeABADerivatives: ∂q̈/∂q, ∂q̈/∂v, ∂q̈/∂τ) for robots read from URDF files, built
// against the headers and libraries of the `pin` wheel in bench/.venv by bench/compare.sh.
//
// Input on stdin (written by bench/robots.py): the number of robots, then per robot
//   the URDF path (one line), the number of states S, then S times q (nq), v (nv), tau (nv),
// all in Pinocchio's own joint order (pinocchio::urdf::buildModel, fixed base).
// Output on stdout: one JSON object per robot and line,
//   {"urdf": path, "nq": .., "nv": .., "aba_ns": .., "crba_ns": .., "rnea_ns": ..,
//    "aba_derivatives_ns": .., "accelerations": [[...], ...]},
// each time the nanoseconds per call, best of 7 runs cycling through the states.
#include <pinocchio/algorithm/aba-derivatives.hpp>
#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/algorithm/crba.hpp>
#include <pinocchio/algorithm/rnea.hpp>
#include <pinocchio/multibody.hpp>
#include <pinocchio/parsers/urdf.hpp>

#include "ns_per_call.hpp"

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

using namespace pinocchio;

int main() {
  int robots = 0;
  std::cin >> robots;
  for (int k = 0; k < robots; ++k) {
    std::string path;
    int count = 0;
    std::cin >> std::ws;
    std::getline(std::cin, path);
    std::cin >> count;
    Model model;
    pinocchio::urdf::buildModel(path, model);
    Data data(model);
    std::vector<Eigen::VectorXd> qs, vs, taus;
    for (int s = 0; s < count; ++s) {
      Eigen::VectorXd q(model.nq), v(model.nv), tau(model.nv);
      for (int i = 0; i < model.nq; ++i) std::cin >> q[i];
      for (int i = 0; i < model.nv; ++i) std::cin >> v[i];
      for (int i = 0; i < model.nv; ++i) std::cin >> tau[i];
      qs.push_back(q);
      vs.push_back(v);
      taus.push_back(tau);
    }
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(model.nv);
    const double aba_ns =
        ns_per_call(count, [&](int s) { return aba(model, data, qs[s], vs[s], taus[s])[0]; });
    const double crba_ns = ns_per_call(count, [&](int s) { return crba(model, data, qs[s])(0, 0); });
    const double rnea_ns =
        ns_per_call(count, [&](int s) { return rnea(model, data, qs[s], vs[s], zero)[0]; });
    const double aba_derivatives_ns = ns_per_call(count, [&](int s) {
      computeABADerivatives(model, data, qs[s], vs[s], taus[s]);
      return data.ddq_dq(0, 0);
    });

    std::printf("{\"urdf\": \"%s\", \"nq\": %d, \"nv\": %d, \"aba_ns\": %.3f, \"crba_ns\": %.3f, "
                "\"rnea_ns\": %.3f, \"aba_derivatives_ns\": %.3f, \"accelerations\": [",
                path.c_str(), int(model.nq), int(model.nv), aba_ns, crba_ns, rnea_ns,
                aba_derivatives_ns);
    for (int s = 0; s < count; ++s) {
      const Eigen::VectorXd a = aba(model, data, qs[s], vs[s], taus[s]);
      std::printf(s ? ", [" : "[");
      for (int i = 0; i < model.nv; ++i) std::printf(i ? ", %.17g" : "%.17g", a[i]);
      std::printf("]");
    }
    std::printf("]}\n");
  }
  return 0;
}
