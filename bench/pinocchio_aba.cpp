// Pinocchio's own in-process cost of forward dynamics (ABA) for the minimal pendulum chain,
// built against the headers of the `pin` wheel in bench/.venv by bench/compare.sh.
//
// Input on stdin (written by compare.py): the number of chains, then per chain
//   n, masses (n), lengths (n), g, the number of states S, then S times theta (n), omega (n).
// Output on stdout: one JSON object per line,
//   {"links": n, "ns": <ns per aba call, best of 7 runs>, "accelerations": [[theta''...], ...]}.
// The model is that of compare.py's pinocchio_chain: revolute joints about z with relative
// angles q_k = theta_k - theta_{k-1}; point mass m_k at (0, -l_k, 0) in joint k's frame.
#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/multibody.hpp>

#include "ns_per_call.hpp"

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

using namespace pinocchio;

int main() {
  int chains = 0;
  std::cin >> chains;
  for (int c = 0; c < chains; ++c) {
    int n = 0, count = 0;
    std::cin >> n;
    std::vector<double> masses(n), lengths(n);
    for (auto& m : masses) std::cin >> m;
    for (auto& l : lengths) std::cin >> l;
    double g = 0.0;
    std::cin >> g >> count;
    Model model;
    model.gravity.linear(Eigen::Vector3d(0.0, -g, 0.0));
    JointIndex parent = 0;
    for (int k = 0; k < n; ++k) {
      const SE3 placement(Eigen::Matrix3d::Identity(),
                          Eigen::Vector3d(0.0, k > 0 ? -lengths[k - 1] : 0.0, 0.0));
      parent = model.addJoint(parent, JointModelRZ(), placement, "joint" + std::to_string(k + 1));
      model.appendBodyToJoint(
          parent, Inertia(masses[k], Eigen::Vector3d(0.0, -lengths[k], 0.0), Eigen::Matrix3d::Zero()),
          SE3::Identity());
    }
    Data data(model);
    std::vector<Eigen::VectorXd> qs, vs;
    for (int s = 0; s < count; ++s) {
      Eigen::VectorXd theta(n), omega(n), q(n), v(n);
      for (int k = 0; k < n; ++k) std::cin >> theta[k];
      for (int k = 0; k < n; ++k) std::cin >> omega[k];
      for (int k = 0; k < n; ++k) {
        q[k] = theta[k] - (k > 0 ? theta[k - 1] : 0.0);
        v[k] = omega[k] - (k > 0 ? omega[k - 1] : 0.0);
      }
      qs.push_back(q);
      vs.push_back(v);
    }
    const Eigen::VectorXd tau = Eigen::VectorXd::Zero(n);

    const double ns = ns_per_call(count, [&](int s) { return aba(model, data, qs[s], vs[s], tau)[0]; });

    std::printf("{\"links\": %d, \"ns\": %.3f, \"accelerations\": [", n, ns);
    for (int s = 0; s < count; ++s) {
      const Eigen::VectorXd a = aba(model, data, qs[s], vs[s], tau);
      double theta_dd = 0.0;
      std::printf(s ? ", [" : "[");
      for (int k = 0; k < n; ++k) {
        theta_dd += a[k];
        std::printf(k ? ", %.17g" : "%.17g", theta_dd);
      }
      std::printf("]");
    }
    std::printf("]}\n");
  }
  return 0;
}
